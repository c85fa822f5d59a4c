"""``make multihost``: Tavla on several hosts behind a real proxy, with faults.

The hosts are Linux network namespaces on one private network (:mod:`.network`); each runs
what the repository's deployment files say (:mod:`.cluster`: ``deploy/haproxy.cfg``,
``deploy/tavla.env``, ``deploy/redis.conf``, ``deploy/postgresql.conf``, the ``Procfile``);
bots play through the proxy (:mod:`.bots`) and the run (:mod:`.run`) injects the faults and
prints the figures. Needs root, ``ip``, HAProxy, PostgreSQL's server binaries, Redis and
openssl.
"""
