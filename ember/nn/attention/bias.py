"""ember.nn.attention.bias: causal masks for scaled_dot_product_attention when the query and key
lengths differ (the diagonal from the upper-left or the lower-right corner), as torch's."""
import enum

from ... import _creation, _dtype


class CausalVariant(enum.IntEnum):
    """Where the causal diagonal starts: the upper-left or the lower-right corner."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal mask of ``seq_len_q`` x ``seq_len_kv``, given as scaled_dot_product_attention's
    ``attn_mask``; it becomes a boolean mask there (``_materialize``)."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        self.variant, self.seq_len_q, self.seq_len_kv = variant, seq_len_q, seq_len_kv

    def _materialize(self, device=None):
        """The boolean mask: True where a query position may attend to a key position."""
        shift = 0 if self.variant == CausalVariant.UPPER_LEFT else self.seq_len_kv - self.seq_len_q
        ones = _creation.ones(self.seq_len_q, self.seq_len_kv, dtype=_dtype.bool_)
        return ones.tril(shift)

    def __repr__(self):
        return repr(self._materialize())


def _causal(variant, size):
    if len(size) != 2:
        raise AssertionError("causal_upper_left and causal_lower_right only support 2D tensors")
    return CausalBias(variant, size[0], size[1])


def causal_upper_left(*size):
    """A causal mask whose diagonal starts at the upper-left corner (torch's is_causal)."""
    return _causal(CausalVariant.UPPER_LEFT, size)


def causal_lower_right(*size):
    """A causal mask whose diagonal ends at the lower-right corner (the last query sees every
    key)."""
    return _causal(CausalVariant.LOWER_RIGHT, size)


__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]
