"""torch.fx.immutable_collections: the list and dict types of Node arguments, which refuse
mutation (a node's args are replaced whole, so its uses stay right)."""

_HELP = """If you are attempting to modify the kwargs or args of a torch.fx.Node object,
instead create a new copy of it and assign the copy to the node:

    new_args = ...  # copy and mutate args
    node.args = new_args"""


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP}")


class immutable_list(list):
    """A list that refuses mutation."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (type(self), (tuple(self),))


class immutable_dict(dict):
    """A dict that refuses mutation."""

    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(frozenset(self.items()))

    def __reduce__(self):
        return (type(self), (tuple(self.items()),))
