"""The deploy configuration keeps what a public demo needs: no public metrics endpoint,
uploads rate-limited at the proxy, and the pod's memory set from the measured ceiling.

Read from the files as written (no nginx or cluster here; `python deploy/check_nginx.py` runs the
nginx template for real and docs/deploy.md gives its result).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = (ROOT / "deploy" / "nginx" / "sticky.conf.template").read_text()
INGRESS = (ROOT / "deploy" / "k8s" / "ingress.yaml").read_text()
DEPLOYMENT = (ROOT / "deploy" / "k8s" / "deployment.yaml").read_text()


def block(text: str, header: str) -> str:
    """The body of the nginx block that opens with `header {` (braces balanced)."""
    start = text.index(header + " {") + len(header) + 2
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start : i - 1]


def code(text: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def test_nginx_answers_the_metrics_path_itself():
    server = code(block(TEMPLATE, "server"))
    metrics = block(server, "location ^~ /_stcore/metrics")
    assert re.search(r"return\s+40[34]\s*;", metrics)
    assert "proxy_pass" not in metrics


def test_nginx_rate_limits_uploads_per_client():
    http = code(block(TEMPLATE, "http"))
    zone = re.search(r"limit_req_zone\s+\$binary_remote_addr\s+zone=uploads:\w+\s+rate=(\d+)r/m\s*;", http)
    assert zone and 1 <= int(zone.group(1)) <= 60
    uploads = block(http, "location ^~ /_stcore/upload_file/")
    assert re.search(r"limit_req\s+zone=uploads\s+burst=\d+", uploads) and "proxy_pass http://streamlit;" in uploads
    assert re.search(r"limit_req_status\s+429\s*;", http)


def ingress_documents() -> dict[str, str]:
    docs = [d for d in INGRESS.split("\n---\n") if "kind: Ingress" in d]
    return {re.search(r"\n  name: (\S+)", d).group(1): d for d in docs}


def annotations(doc: str) -> dict[str, str]:
    return dict(re.findall(r'nginx\.ingress\.kubernetes\.io/([\w-]+): "([^"]*)"', doc))


def test_ingress_rate_limits_uploads_with_the_same_affinity():
    docs = ingress_documents()
    main, uploads = annotations(docs["pe-explorer"]), annotations(docs["pe-explorer-uploads"])
    assert "path: /_stcore/upload_file\n" in docs["pe-explorer-uploads"]
    assert 1 <= int(uploads["limit-rpm"]) <= 60
    affinity = {k: v for k, v in main.items() if k.startswith(("affinity", "session-cookie"))}
    assert affinity and all(uploads.get(k) == v for k, v in affinity.items())  # an upload reaches the pod that holds its session


def test_ingress_denies_the_metrics_path_to_everyone():
    doc = ingress_documents()["pe-explorer-no-metrics"]
    assert "path: /_stcore/metrics\n" in doc
    assert set(annotations(doc)["denylist-source-range"].split(",")) == {"0.0.0.0/0", "::/0"}


def test_the_pod_requests_the_measured_memory_peak_and_limits_above_it():
    docs = (ROOT / "docs" / "deploy.md").read_text()
    peak = int(re.search(r"\*\*peak \(the kernel's VmHWM\)\*\* \| \*\*([\d,]+) MiB\*\*", docs).group(1).replace(",", ""))
    resources = DEPLOYMENT[DEPLOYMENT.index("resources:") :]
    request = int(re.search(r"requests:\s+cpu: \S+\s+memory: (\d+)Mi", resources).group(1))
    limit = int(re.search(r"limits:\s+memory: (\d+)Mi", resources).group(1))
    assert peak <= request < limit and peak <= 0.8 * limit
