"""Functional forms of the convolution, pooling, normalisation, embedding and attention layers."""
