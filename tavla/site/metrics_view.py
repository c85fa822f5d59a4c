"""``/metrics``: this process's Prometheus figures (:mod:`tavla.metrics`), for the operator only.

With ``TAVLA_METRICS_TOKEN`` set, a scrape must send ``Authorization: Bearer <token>``
(Prometheus' ``authorization`` setting); without it, only clients whose address is in
``TAVLA_METRICS_ADDRESSES`` (default: loopback) are answered. Anyone else gets 403 and no
figure. Behind a proxy of ``TAVLA_TRUSTED_PROXIES`` the address is the client's, so a scrape
through the public proxy from outside is refused too.
"""

from __future__ import annotations

import hmac
from ipaddress import ip_address

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from tavla.site.proxies import trusted_networks


def _allowed(request: HttpRequest) -> bool:
    token = settings.TAVLA_METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())
    try:
        address = ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network
               for network in trusted_networks(settings.TAVLA_METRICS_ADDRESSES))


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return HttpResponse("Metrics are for the operator: send the metrics token "
                            "(TAVLA_METRICS_TOKEN) or scrape from an allowed address "
                            "(TAVLA_METRICS_ADDRESSES).\n", status=403,
                            content_type="text/plain; charset=utf-8")
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
