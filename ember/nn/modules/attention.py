"""MultiheadAttention with torch's parameter layout (in_proj_weight, out_proj)."""
import math
import warnings

import numpy as np

from ... import _creation
from ..._tensor import Tensor
from ...ops import api
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


def _float_mask(mask, name, dtype):
    """A bool mask (True = not allowed) as -inf/0, or a float mask as is."""
    if mask is None:
        return None
    data = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if data.dtype == np.bool_:
        data = np.where(data, -np.inf, 0.0).astype(dtype)
    elif data.dtype.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return Tensor._make(data.astype(dtype, copy=False)) if not isinstance(mask, Tensor) or \
        data is not mask._data else mask


def canonical_masks(padding, padding_name, mask, mask_name, dtype):
    """A key padding mask and an attention mask as additive float masks of ``dtype`` (see
    _float_mask), with torch's deprecation warning where the two were given in two dtypes."""
    if padding is not None and mask is not None and padding.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {padding_name} and {mask_name} is deprecated. "
                      f"Use same type for both instead.", stacklevel=4)
    return _float_mask(padding, padding_name, dtype), _float_mask(mask, mask_name, dtype)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads: softmax(q k^T / sqrt(d) + masks) v, projected."""

    _static_kv = (None, None)  # nn.functional's static_k / static_v, (N * heads, S, head_dim)

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        self.add_zero_attn = add_zero_attn
        empty = lambda *shape: Parameter(_creation.empty(shape, dtype=dtype))
        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k, self.bias_v = empty(1, 1, embed_dim), empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def _project(self, query, key, value):
        e = self.embed_dim
        biases = (None,) * 3 if self.in_proj_bias is None else self.in_proj_bias.chunk(3)
        if self._qkv_same_embed_dim:
            if query is key and key is value:  # self-attention: one product for q, k and v
                return F.linear(query, self.in_proj_weight, self.in_proj_bias).chunk(3, -1)
            weights = (self.in_proj_weight[:e], self.in_proj_weight[e:2 * e],
                       self.in_proj_weight[2 * e:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                               "Transformer module method `generate_square_subsequent_mask` to "
                               "create this mask.")
        batched = query.dim() == 3
        if query.shape[-1] != self.embed_dim:  # torch's check, before any projection
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but "
                                 f"got {query.shape[-1]}")
        if self.batch_first and batched:
            same_kv = key is value
            if key is query:
                query = key = query.transpose(1, 0)
            else:
                query, key = query.transpose(1, 0), key.transpose(1, 0)
            value = key if same_kv else value.transpose(1, 0)
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        out, weights = self._attend(query, key, value, key_padding_mask, need_weights,
                                    attn_mask, average_attn_weights)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        if not batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0) if weights is not None else None
        return out, weights

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, average):
        """query (L, N, E), key/value (S, N, E) -> (L, N, E) output and optional weights."""
        length, batch, e = query.shape
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None:
            k = api.cat([k, self.bias_k.expand(1, batch, e)])
            v = api.cat([v, self.bias_v.expand(1, batch, e)])
        q, k, v = (self._split_heads(t) for t in (q, k, v))  # (N, H, L or S, head_dim)
        k, v = (t if static is None else self._static_heads(static, name, batch)
                for t, static, name in zip((k, v), self._static_kv, ("static_k", "static_v")))
        if self.add_zero_attn:  # one all-zero key and value every query may attend to
            k, v = (api.cat([t, _creation.zeros(tuple(t.shape[:2]) + (1, self.head_dim),
                                                dtype=t.dtype)], 2) for t in (k, v))
        mask = self._merged_mask(attn_mask, key_padding_mask, length, batch, key.shape[0],
                                 k.shape[2], q._data.dtype)
        p = self.dropout if self.training else 0.0
        weights = None
        if need_weights:
            scores = api.matmul(q * math.sqrt(1.0 / self.head_dim), k.transpose(-2, -1))
            weights = F.softmax(scores if mask is None else scores + mask, dim=-1)
            attended = api.matmul(F.dropout(weights, p) if p > 0 else weights, v)
            if average:
                weights = weights.mean(1)
        else:
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        out = attended.permute(2, 0, 1, 3).reshape(length * batch, e)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias)
        return out.reshape(length, batch, e), weights

    def _split_heads(self, t):
        return t.reshape(t.shape[0], t.shape[1], self.num_heads, self.head_dim).permute(1, 2, 0, 3)

    def _static_heads(self, static, name, batch):
        """A given (N * heads, S, head_dim) key or value as (N, heads, S, head_dim)."""
        if self.bias_k is not None:
            what = "key" if name == "static_k" else "value"
            raise AssertionError(f"bias cannot be added to static {what}.")
        for axis, size in ((0, batch * self.num_heads), (2, self.head_dim)):
            if static.shape[axis] != size:
                raise AssertionError(f"expecting {name}.size({axis}) of {size}, but got "
                                     f"{static.shape[axis]}")
        return static.reshape(batch, self.num_heads, static.shape[1], self.head_dim)

    def _merged_mask(self, attn_mask, key_padding_mask, length, batch, keys, source, dtype):
        """attn_mask and key_padding_mask as one additive float mask broadcasting over
        (N, H, L, S); bool masks mark positions that may NOT be attended. ``keys`` is the key
        sequence's length as given, ``source`` the keys attended (bias and zero keys added)."""
        padding, mask = canonical_masks(key_padding_mask, "key_padding_mask", attn_mask,
                                        "attn_mask", dtype)
        # the bias key and the zero key appended to the keys: neither is masked
        extra = (self.bias_k is not None) + bool(self.add_zero_attn)
        if mask is not None:
            mask = _pad_last(self._check_attn_mask(mask, length, keys, batch), extra)
        if padding is not None:
            padding = _pad_last(padding, extra)
            for axis, size in enumerate((batch, source)):
                if padding.shape[axis] != size:
                    raise AssertionError(f"Expected key_padded_mask.shape[{axis}] to be {size}, "
                                         f"but got {padding.shape[axis]}")
            padding = padding.reshape(batch, 1, 1, source)
            mask = padding if mask is None else mask + padding
        return mask

    def _check_attn_mask(self, mask, length, source, batch):
        if mask.dim() == 2:
            if tuple(mask.shape) != (length, source):
                raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but "
                                   f"should be {(length, source)}.")
            return mask.reshape(1, 1, length, source)
        expected = (batch * self.num_heads, length, source)
        if mask.dim() != 3 or tuple(mask.shape) != expected:
            raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but "
                               f"should be {expected}.")
        return mask.reshape(batch, self.num_heads, length, source)


def _pad_last(mask, extra):
    """Zero columns appended for the extra keys (add_bias_kv's bias row, add_zero_attn's)."""
    if not extra:
        return mask
    zeros = _creation.zeros(tuple(mask.shape[:-1]) + (extra,), dtype=mask.dtype,
                             device=mask.device)
    return api.cat([mask, zeros], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """nn.functional's form of MultiheadAttention over (L, N, E) (or unbatched (L, E)) inputs:
    the module's own computation run on the given weights."""
    embed_dim = query.shape[-1]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    if embed_dim % num_heads:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if not use_separate_proj_weight and in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    attention = MultiheadAttention.__new__(MultiheadAttention)  # the module's state, borrowed
    attention.__dict__.update(
        _parameters={}, _buffers={}, _modules={}, training=training, embed_dim=embed_dim,
        num_heads=num_heads, head_dim=embed_dim // num_heads, dropout=dropout_p,
        batch_first=False, add_zero_attn=add_zero_attn, _static_kv=(static_k, static_v),
        _qkv_same_embed_dim=not use_separate_proj_weight,
        in_proj_weight=in_proj_weight, in_proj_bias=in_proj_bias, q_proj_weight=q_proj_weight,
        k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, bias_k=bias_k, bias_v=bias_v,
        out_proj=_Projection(out_proj_weight, out_proj_bias))
    return MultiheadAttention.forward(attention, query, key, value, key_padding_mask,
                                      need_weights, attn_mask, average_attn_weights, is_causal)


class _Projection:
    """The output projection's weight and bias, where the module keeps a Linear."""

    def __init__(self, weight, bias):
        self.weight, self.bias = weight, bias
