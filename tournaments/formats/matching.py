"""Maximum cardinality matching in a general graph (Edmonds' blossom algorithm).

Swiss pairing uses it to know how many pairs of a set of players can avoid a rematch, so that
a greedy choice never paints the rest of the round into a corner. It only runs on small sets
(the tail of a round, small fields); large sets are settled by Dirac's theorem (see
:mod:`tournaments.formats.swiss`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def maximum_matching(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of the graph on vertices ``0..n-1``; ``adjacency[v]`` lists the
    neighbours of ``v`` (symmetric, no loops). Returns ``mate`` with ``mate[v]`` the vertex
    matched to ``v``, or -1. O(n^3)."""
    n = len(adjacency)
    mate = [-1] * n
    # A greedy start leaves few augmenting paths to find on the dense graphs Swiss has.
    for v in range(n):
        if mate[v] == -1:
            for u in adjacency[v]:
                if mate[u] == -1:
                    mate[u], mate[v] = v, u
                    break
    for root in range(n):
        if mate[root] == -1:
            _augment_from(root, adjacency, mate)
    return mate


def matching_size(adjacency: Sequence[Sequence[int]]) -> int:
    """How many disjoint edges a maximum matching of the graph has."""
    return sum(1 for mate in maximum_matching(adjacency) if mate != -1) // 2


def _augment_from(root: int, adjacency: Sequence[Sequence[int]], mate: list[int]) -> None:
    """Grow an alternating tree from the free vertex ``root``, shrinking blossoms, and flip
    the first augmenting path found (if any) into ``mate``."""
    n = len(adjacency)
    parent = [-1] * n
    base = list(range(n))
    in_tree = [False] * n
    in_tree[root] = True
    queue = deque([root])

    def lowest_common_base(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark_blossom(v: int, blossom_base: int, child: int, blossom: list[bool]) -> None:
        while base[v] != blossom_base:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in adjacency[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                blossom_base = lowest_common_base(v, to)
                blossom = [False] * n
                mark_blossom(v, blossom_base, to, blossom)
                mark_blossom(to, blossom_base, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = blossom_base
                        if not in_tree[i]:
                            in_tree[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    # Augmenting path root .. v - to: flip it.
                    while to != -1:
                        previous = parent[to]
                        next_free = mate[previous]
                        mate[to], mate[previous] = previous, to
                        to = next_free
                    return
                in_tree[mate[to]] = True
                queue.append(mate[to])
