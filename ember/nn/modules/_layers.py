"""Convolution, pooling, normalisation, embedding, recurrent and attention layers."""
