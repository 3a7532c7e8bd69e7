"""The "gloo" backend: ranks joined by TCP sockets (the standard library only), behind the same
mpi4py-style communicator interface that the collectives and DistributedDataParallel call.

Rendezvous: rank 0 listens on MASTER_ADDR:MASTER_PORT (or the ``tcp://host:port`` init_method);
every other rank opens a listening socket of its own, connects to rank 0 (retrying until the
timeout) and says its rank, world size and port; rank 0 answers with every rank's address, and
the other ranks connect to each other, so that every pair of ranks shares one connection.

Collectives are blocking: each ``I...`` method has finished (or failed) when it returns, and
returns a completed request (``Test`` is True; a failure raises ``CommError`` from ``Test``).
Reductions run through rank 0, which combines the ranks' values in rank order
(``((x0 + x1) + x2) + ...``) and sends the result back; broadcast, gather, scatter and
point-to-point messages go directly between the two ranks concerned.

Every message is framed (kind, tag, byte count); a rank reading from a peer keeps messages
meant for a later receive (another tag, or a collective while it waits for a send) until
they are asked for. A peer that exits closes its connections, so the others fail at once
instead of waiting; a peer that hangs makes them fail after the group's timeout.
"""
import contextlib
import json
import select
import socket
import struct
import time

import numpy as np

_HEADER = struct.Struct("<bqq")  # kind, tag, payload bytes
_COLLECTIVE, _P2P, _SETUP = 0, 1, 2
_CONNECT_RETRY_S = 0.05


class _InPlace:
    def __repr__(self):
        return "IN_PLACE"


IN_PLACE = _InPlace()
ANY_SOURCE = -1
SUM, PROD, MIN, MAX = np.add, np.multiply, np.minimum, np.maximum


class Status:
    """Filled by a receive's request: ``Get_source()`` is the sender's rank."""

    source = ANY_SOURCE

    def Get_source(self):
        return self.source


class CommError(RuntimeError):
    """A collective or message failed (timeout, lost peer, size mismatch); ``reason`` says why."""

    def __init__(self, reason):
        super().__init__(f"ember.distributed (gloo): {reason}")
        self.reason = reason


class Request:
    """An operation that already ran: complete, or failed with ``failure`` (a CommError)."""

    def __init__(self, source=None, failure=None):
        self.source = source
        self.failure = failure

    def Test(self, status=None):
        if self.failure is not None:
            raise self.failure
        if status is not None and self.source is not None:
            status.source = self.source
        return True

    Wait = Test


def _as_bytes(arr):
    """A read-only byte view of ``arr``'s values (C order; copied only if not contiguous)."""
    return memoryview(np.ascontiguousarray(arr)).cast("B")


def _fill(out, payload, peer):
    """Copy a received payload into the array ``out`` (its exact size expected)."""
    if len(payload) != out.nbytes:
        raise CommError(f"received {len(payload)} bytes from rank {peer} where {out.nbytes} were "
                        "expected (the ranks passed tensors of different sizes or dtypes)")
    out.reshape(-1)[...] = np.frombuffer(payload, dtype=out.dtype)


def _operation(method):
    """Run a communicator method; its failure becomes a failed request (and breaks the
    communicator: its connections may hold half a message)."""
    def run(self, *args, **kwargs):
        if self._broken is not None:
            return Request(failure=CommError(f"the process group is unusable after an earlier "
                                             f"failure ({self._broken})"))
        try:
            return Request(source=method(self, *args, **kwargs))
        except CommError as exc:
            self._broken = exc.reason
            return Request(failure=exc)
    run.__name__ = method.__name__
    run.__doc__ = method.__doc__
    return run


class SocketComm:
    """mpi4py's communicator methods that ember.distributed uses, over one socket per peer."""

    def __init__(self, rank, size, peers, timeout):
        self.rank = rank
        self.size = size
        self.peers = peers  # rank -> connected socket
        self.timeout = timeout
        self.pending = {r: [] for r in peers}  # messages read before they were asked for
        self._broken = None

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size

    def Free(self):
        """Close every connection (destroy_process_group)."""
        for sock in self.peers.values():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        self.peers = {}
        self._broken = "destroy_process_group closed it"

    # -- framed messages ------------------------------------------------------------------

    def _deadline(self):
        return time.monotonic() + self.timeout

    def _timed_out(self, peer):
        return CommError(f"timed out after {self.timeout:g}s waiting for rank {peer}; a rank may "
                         "have died, hung, or skipped this collective")

    def _lost(self, peer):
        return CommError(f"lost the connection to rank {peer} (that process exited, crashed or "
                         "destroyed its process group)")

    def _send(self, peer, data, kind=_COLLECTIVE, tag=0, deadline=None):
        data = _as_bytes(data)
        sock = self.peers[peer]
        sock.settimeout(max(1e-3, (deadline or self._deadline()) - time.monotonic()))
        try:
            sock.sendall(_HEADER.pack(kind, tag, data.nbytes))
            sock.sendall(data)
        except socket.timeout:
            raise self._timed_out(peer) from None
        except OSError:
            raise self._lost(peer) from None

    def _read_exact(self, peer, n, deadline):
        sock = self.peers[peer]
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timed_out(peer)
            sock.settimeout(remaining)
            try:
                count = sock.recv_into(view[got:])
            except socket.timeout:
                raise self._timed_out(peer) from None
            except OSError:
                raise self._lost(peer) from None
            if count == 0:
                raise self._lost(peer)
            got += count
        return buf

    def _read_message(self, peer, deadline):
        kind, tag, n = _HEADER.unpack(self._read_exact(peer, _HEADER.size, deadline))
        return kind, tag, self._read_exact(peer, n, deadline)

    def _take(self, peer, kind, tag):
        """A kept message of this kind and tag from ``peer`` (the oldest), or None."""
        for i, (k, t, payload) in enumerate(self.pending[peer]):
            if k == kind and t == tag:
                del self.pending[peer][i]
                return payload
        return None

    def _recv(self, peer, kind=_COLLECTIVE, tag=0, deadline=None):
        """The next message of this kind and tag from ``peer``."""
        deadline = deadline or self._deadline()
        payload = self._take(peer, kind, tag)
        while payload is None:
            k, t, data = self._read_message(peer, deadline)
            if k == kind and t == tag:
                return data
            self.pending[peer].append((k, t, data))
        return payload

    def _recv_any(self, kind, tag, deadline):
        """(sender, payload) of the first message of this kind and tag from any peer."""
        while True:
            for peer in sorted(self.peers):
                payload = self._take(peer, kind, tag)
                if payload is not None:
                    return peer, payload
            remaining = deadline - time.monotonic()
            socks = {sock: peer for peer, sock in self.peers.items()}
            ready = select.select(list(socks), [], [], max(0.0, remaining))[0] if socks else []
            if not ready:
                raise CommError(f"timed out after {self.timeout:g}s waiting for a message from "
                                "any rank")
            for sock in ready:
                peer = socks[sock]
                self.pending[peer].append(self._read_message(peer, deadline))

    def _recv_into(self, peer, out, deadline):
        _fill(out, self._recv(peer, deadline=deadline), peer)

    def _others(self):
        return [r for r in range(self.size) if r != self.rank]

    # -- building blocks: through rank 0 ----------------------------------------------------

    def _reduce_at_zero(self, data, op, deadline):
        """Rank 0: every rank's ``data`` combined by ``op`` in rank order; others: None."""
        if self.rank != 0:
            self._send(0, data, deadline=deadline)
            return None
        total = np.array(data, order="C", copy=True)
        other = np.empty_like(total)
        for peer in range(1, self.size):
            self._recv_into(peer, other, deadline)
            op(total, other, out=total)
        return total

    def _send_from(self, root, data, out, deadline):
        """``root`` sends ``data`` to every other rank, which writes it into ``out``."""
        if self.rank == root:
            for peer in self._others():
                self._send(peer, data, deadline=deadline)
        else:
            self._recv_into(root, out, deadline)

    def _gather_rows(self, send, rows, root, deadline):
        """Rank ``root`` writes every rank's ``send`` into ``rows[rank]``."""
        if self.rank != root:
            self._send(root, send, deadline=deadline)
            return
        for peer in range(self.size):
            if peer == root:
                rows[peer].reshape(-1)[...] = np.asarray(send).reshape(-1)
            else:
                self._recv_into(peer, rows[peer], deadline)

    def _scatter_rows(self, rows, recv, root, deadline):
        """Rank ``root`` sends ``rows[i]`` to rank i, which writes it into ``recv``."""
        if self.rank != root:
            self._recv_into(root, recv, deadline)
            return
        for peer in range(self.size):
            if peer == root:
                recv.reshape(-1)[...] = rows[peer].reshape(-1)
            else:
                self._send(peer, rows[peer], deadline=deadline)

    # -- mpi4py's non-blocking methods (each completes before returning) --------------------

    @_operation
    def Iallreduce(self, sendbuf, recvbuf, op=SUM):
        data = recvbuf if sendbuf is IN_PLACE else sendbuf
        deadline = self._deadline()
        total = self._reduce_at_zero(data, op, deadline)
        if self.rank == 0:
            recvbuf[...] = total.reshape(recvbuf.shape)
        self._send_from(0, total, recvbuf, deadline)

    @_operation
    def Ireduce(self, sendbuf, recvbuf, op=SUM, root=0):
        data = recvbuf if sendbuf is IN_PLACE else sendbuf
        deadline = self._deadline()
        total = self._reduce_at_zero(data, op, deadline)
        if root == 0:
            if self.rank == 0:
                recvbuf[...] = total.reshape(recvbuf.shape)
        elif self.rank == 0:
            self._send(root, total, deadline=deadline)
        elif self.rank == root:
            self._recv_into(0, recvbuf, deadline)

    @_operation
    def Ireduce_scatter_block(self, sendbuf, recvbuf, op=SUM):
        deadline = self._deadline()
        total = self._reduce_at_zero(sendbuf, op, deadline)
        rows = None if total is None else total.reshape(self.size, -1)
        self._scatter_rows(rows, recvbuf, 0, deadline)

    @_operation
    def Ibcast(self, buf, root=0):
        self._send_from(root, buf, buf, self._deadline())

    @_operation
    def Ibarrier(self):
        deadline = self._deadline()
        nothing = np.empty(0, dtype=np.uint8)
        self._reduce_at_zero(nothing, SUM, deadline)
        self._send_from(0, nothing, nothing, deadline)

    @_operation
    def Iallgather(self, sendbuf, recvbuf):
        deadline = self._deadline()
        rows = recvbuf.reshape(self.size, -1)
        self._gather_rows(sendbuf, rows, 0, deadline)
        self._send_from(0, recvbuf, recvbuf, deadline)

    @_operation
    def Igather(self, sendbuf, recvbuf, root=0):
        rows = None if recvbuf is None else recvbuf.reshape(self.size, -1)
        self._gather_rows(sendbuf, rows, root, self._deadline())

    @_operation
    def Iscatter(self, sendbuf, recvbuf, root=0):
        rows = None if sendbuf is None else sendbuf.reshape(self.size, -1)
        self._scatter_rows(rows, recvbuf, root, self._deadline())

    @_operation
    def Isend(self, buf, dest, tag=0):
        self._send(dest, buf, _P2P, tag)

    @_operation
    def Irecv(self, buf, source=ANY_SOURCE, tag=0):
        deadline = self._deadline()
        if source == ANY_SOURCE:
            source, payload = self._recv_any(_P2P, tag, deadline)
        else:
            payload = self._recv(source, _P2P, tag, deadline)
        _fill(buf, payload, source)
        return source


# -- rendezvous -------------------------------------------------------------------------------


def _listen(port):
    """A listening socket on every local address (IPv6 and IPv4 where possible)."""
    if socket.has_dualstack_ipv6():
        return socket.create_server(("", port), family=socket.AF_INET6, dualstack_ipv6=True,
                                    backlog=128)
    return socket.create_server(("", port), backlog=128)


def _connect(host, port, deadline, who):
    """Connect to host:port, retrying (the listener may not be up yet) until ``deadline``."""
    while True:
        remaining = deadline - time.monotonic()
        try:
            sock = socket.create_connection((host, port), timeout=max(1e-3, remaining))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError as exc:
            if time.monotonic() + _CONNECT_RETRY_S > deadline:
                raise CommError(f"could not connect to {who} at {host}:{port} ({exc}) within "
                                "the timeout; is that process running?") from None
            time.sleep(_CONNECT_RETRY_S)


def _accept(server, deadline, what):
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise CommError(what)
    server.settimeout(remaining)
    try:
        sock, addr = server.accept()
    except socket.timeout:
        raise CommError(what) from None
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock, addr


def _setup_message(comm, peer, obj):
    comm._send(peer, json.dumps(obj).encode(), _SETUP)


def _setup_reply(comm, peer, deadline):
    return json.loads(bytes(comm._recv(peer, _SETUP, 0, deadline)))


def connect(host, port, rank, size, timeout):
    """Join ``size`` ranks through rank 0's socket at host:port; returns this rank's SocketComm.
    Raises CommError (a RuntimeError) when the ranks do not all arrive within ``timeout``."""
    deadline = time.monotonic() + timeout
    if rank == 0:
        return _serve(port, size, timeout, deadline)
    comm = SocketComm(rank, size, {}, timeout)
    listener = _listen(0)
    with _setting_up(comm, listener):
        comm.peers[0] = _connect(host, port, deadline, "rank 0 (MASTER_ADDR:MASTER_PORT)")
        comm.pending[0] = []
        _setup_message(comm, 0, {"rank": rank, "size": size,
                                 "port": listener.getsockname()[1]})
        table = _setup_reply(comm, 0, deadline)
        if "error" in table:
            raise CommError(table["error"])
        for peer in range(1, rank):  # connect to the lower ranks, accept the higher ones
            peer_host, peer_port = table["addresses"][peer]
            comm.peers[peer] = _connect(peer_host, peer_port, deadline, f"rank {peer}")
            _setup_message(comm, peer, {"rank": rank})
            comm.pending[peer] = []
        for _ in range(rank + 1, size):
            sock, _ = _accept(listener, deadline, f"timed out after {timeout:g}s waiting for the "
                                                  "higher ranks to connect")
            _, _, payload = _read_setup(sock, deadline, comm)
            peer = json.loads(bytes(payload))["rank"]
            comm.peers[peer] = sock
            comm.pending[peer] = []
        return comm


@contextlib.contextmanager
def _setting_up(comm, listener):
    """Setup's cleanup: the listening socket is closed when setup ends, and every peer socket
    connected so far when it fails."""
    try:
        yield
    except BaseException:
        for sock in comm.peers.values():
            sock.close()
        raise
    finally:
        listener.close()


def _read_setup(sock, deadline, comm):
    """The first message on a newly accepted socket (before its rank is known)."""
    comm.peers[-1] = sock
    try:
        return comm._read_message(-1, deadline)
    finally:
        del comm.peers[-1]


def _serve(port, size, timeout, deadline):
    try:
        server = _listen(port)
    except OSError as exc:
        raise CommError(f"rank 0 could not listen on port {port} ({exc.strerror}); another "
                        "process may be using MASTER_PORT") from None
    comm = SocketComm(0, size, {}, timeout)
    with _setting_up(comm, server):
        addresses = [None] * size
        error = None
        for joined in range(1, size):
            sock, addr = _accept(server, deadline, f"timed out after {timeout:g}s waiting for "
                                                   f"the other ranks: {joined}/{size} joined")
            _, _, payload = _read_setup(sock, deadline, comm)
            hello = json.loads(bytes(payload))
            peer = hello["rank"]
            if hello["size"] != size:
                error = (f"rank {peer} was started with world_size {hello['size']} but rank 0 "
                         f"with world_size {size}")
            elif peer in comm.peers or not 0 < peer < size:
                error = f"two processes joined as rank {peer}, or rank {peer} is out of range"
            comm.peers[peer if error is None else -joined] = sock
            addresses[peer if error is None else 0] = [addr[0], hello["port"]]
        reply = {"error": error} if error else {"addresses": addresses}
        for peer in list(comm.peers):
            _setup_message(comm, peer, reply)
        if error:
            raise CommError(error)
        comm.pending = {r: [] for r in comm.peers}
        return comm
