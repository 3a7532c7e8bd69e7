"""Activation modules."""
