"""torch._dynamo.config: the settings scripts set before torch.compile, with torch's defaults;
they are kept (a script reads back what it set) and steer nothing, as ember has no compiler."""
suppress_errors = False
cache_size_limit = 8
accumulated_cache_size_limit = 256
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
inline_inbuilt_nn_modules = True
