"""The fixed measurements the benchmark tests print and compare, built with either library."""


def measurements(B):
    float4 = B.TaskSpec("x.mm(y)", "pass", label="mm", sub_label="float", description="n=4")
    float8 = B.TaskSpec("x.mm(y)", "x = 1", label="mm", sub_label="float", description="n=8")
    many = B.TaskSpec("a\nb", "s\nt", label="mm", sub_label="int", description="n=8",
                      num_threads=2)
    noisy = B.TaskSpec("z", "pass", label="mm", sub_label="w", description="n=4")
    alone = B.TaskSpec("torch.add(x, 1)", "pass", description="d")
    return [B.Measurement(100, [1.2e-4, 1.3e-4, 1.25e-4, 1.9e-4, 1.1e-4], float4),
            B.Measurement(10, [3.2e-3], float8),
            B.Measurement(1000, [5e-6, 5.1e-6, 4.9e-6, 5e-6], many),
            B.Measurement(100, [1.2e-4, 1.31e-4], float4),
            B.Measurement(7, [1e-3, 2e-3, 1.1e-3, 3e-3, 1e-3], noisy),
            B.Measurement(3, [2.5, 2.0, 4.0], alone)]
