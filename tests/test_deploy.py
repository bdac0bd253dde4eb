"""The deploy configuration keeps what a public demo needs: no public metrics endpoint,
uploads rate-limited at the proxy, and the pod's memory set from the measured ceiling.

The Kubernetes manifests are read as written (no cluster here); the image's entrypoint runs for real, with
stand-in app processes, and with Debian's nginx in front of them (`python deploy/check_nginx.py` runs the
template in front of the real app, and docs/deploy.md gives its result).
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


def test_nginx_names_no_version_and_no_replica():
    http = code(block(TEMPLATE, "http"))
    assert re.search(r"(?m)^\s*server_tokens\s+off\s*;", http)
    assert "x-upstream" not in http.lower() and "$upstream_addr" not in http.replace("upstream=$upstream_addr", "")  # only the access log has it


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


def test_the_pods_trust_no_proxy_until_the_operator_names_the_ingress_controller():
    """PEE_TRUSTED_PROXIES reaches the pods from one setting in kustomization.yaml, left empty: nobody's
    X-Forwarded-For is believed until the operator names the controller's range (no private network
    trusted wholesale, where any pod could name a client address of its choosing)."""
    env = re.search(r"- name: PEE_TRUSTED_PROXIES\n(\s+\S[^\n]*\n)+?\s+- name:", DEPLOYMENT).group(0)
    ref = re.search(r"configMapKeyRef:\s+name: (\S+)\s+key: (\S+)", env)
    assert ref and "value:" not in env
    kustomization = code((ROOT / "deploy" / "k8s" / "kustomization.yaml").read_text())
    generated = kustomization[kustomization.index("configMapGenerator:") :]
    assert re.search(rf"- name: {re.escape(ref.group(1))}\n\s+literals:\s+- {re.escape(ref.group(2))}=(.*)$", generated, re.M).group(1) == ""
    assert "Behind a proxy: the Kubernetes manifests" in (ROOT / "docs" / "deploy.md").read_text()


def test_the_pod_requests_the_measured_memory_peak_and_limits_above_it():
    docs = (ROOT / "docs" / "deploy.md").read_text()
    peak = int(re.search(r"\*\*peak \(the kernel's VmHWM\)\*\* \| \*\*([\d,]+) MiB\*\*", docs).group(1).replace(",", ""))
    resources = DEPLOYMENT[DEPLOYMENT.index("resources:") :]
    request = int(re.search(r"requests:\s+cpu: \S+\s+memory: (\d+)Mi", resources).group(1))
    limit = int(re.search(r"limits:\s+memory: (\d+)Mi", resources).group(1))
    assert peak <= request < limit and peak <= 0.8 * limit


# --- the image: one app process per core behind nginx (deploy/image) ---------------------------------

import os  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402

import pytest  # noqa: E402

ENTRYPOINT = ROOT / "deploy" / "image" / "entrypoint.sh"
DOCKERFILE = (ROOT / "Dockerfile").read_text()
NPROC = int(subprocess.run(["nproc"], capture_output=True, text=True).stdout)


def cores(tmp_path, files: dict[str, str]) -> int:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {**os.environ, "PEE_CGROUP_ROOT": str(tmp_path)}
    return int(subprocess.run(["sh", str(ENTRYPOINT), "--cores"], capture_output=True, text=True, env=env, check=True).stdout)


@pytest.mark.parametrize(
    ("files", "quota_cores"),
    [
        ({}, None),  # no cgroup files: the CPUs online
        ({"cpu.max": "max 100000\n"}, None),  # v2, no quota
        ({"cpu.max": "200000 100000\n"}, 2),
        ({"cpu.max": "150000 100000\n"}, 2),  # 1.5 cores: rounded up
        ({"cpu.max": "50000 100000\n"}, 1),  # half a core: still one process
        ({"cpu.max": "100000000 100000\n"}, None),  # a quota above the CPUs: the CPUs
        ({"cpu.max": "garbage\n"}, None),
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, no quota
        ({"cpu,cpuacct/cpu.cfs_quota_us": "100000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 1),  # v1
        ({"cpu/cpu.cfs_quota_us": "300000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 3),
    ],
)
def test_the_entrypoint_starts_one_process_per_core_of_the_quota(tmp_path, files, quota_cores):
    expected = NPROC if quota_cores is None else max(1, min(NPROC, quota_cores))
    assert cores(tmp_path, files) == expected


def test_the_image_runs_the_entrypoint_behind_nginx_and_checks_every_process():
    assert re.search(r'(?m)^ENTRYPOINT \["/app/deploy/image/entrypoint\.sh"\]$', DOCKERFILE)
    assert re.search(r'(?s)HEALTHCHECK .*CMD \["python", "/app/deploy/image/healthcheck\.py"\]', DOCKERFILE)
    assert re.search(r"apt-get install -y --no-install-recommends nginx\b", DOCKERFILE)
    ignored = (ROOT / ".dockerignore").read_text().split("\n")
    assert "deploy" not in ignored and {"deploy/k8s", "deploy/*.py"} <= set(ignored)  # deploy/image and deploy/nginx go in
    assert os.access(ENTRYPOINT, os.X_OK)
    assert re.search(r"- name: PEE_PROXY[^\n]*\n\s+value: none", DEPLOYMENT)  # the manifests: one process per pod, no nginx in it


def image_config(*ports: int) -> str:
    out = subprocess.run([sys.executable, "deploy/image/nginx.py", "--app-ports", *map(str, ports), "--print"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout


def test_the_images_nginx_is_the_templates_with_every_process_upstream():
    conf = image_config(8511, 8512)
    assert "{{" not in code(conf) and conf.count("location") == TEMPLATE.count("location")
    server = code(block(conf, "server"))
    assert re.search(r"return\s+404\s*;", block(server, "location ^~ /_stcore/metrics"))  # hidden, as in deploy/nginx
    assert "listen 0.0.0.0:8501;" in server and "limit_req zone=uploads" in server
    upstream = code(block(conf, "upstream streamlit"))
    assert re.findall(r"server 127\.0\.0\.1:(\d+) max_fails=3", upstream) == ["8511", "8512"] and "hash $route_key consistent;" in upstream
    assert re.search(r"(?m)^error_log stderr warn;$", conf) and re.search(r"(?m)^\s*access_log off;$", conf)


def test_the_images_nginx_trusts_only_the_proxies_it_is_given():
    assert "set_real_ip_from" not in code(image_config(8511))  # by default nobody's X-Forwarded-For is believed
    out = subprocess.run(
        [sys.executable, "deploy/image/nginx.py", "--app-ports", "8511", "--print", "--trusted-proxies", "10.0.0.0/8, ::1 192.168.1.7"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert re.findall(r"set_real_ip_from (\S+);", code(out.stdout)) == ["10.0.0.0/8", "::1/128", "192.168.1.7/32"]
    assert re.search(r"real_ip_header\s+X-Forwarded-For;", code(out.stdout)) and "real_ip_recursive on;" in out.stdout
    bad = subprocess.run(
        [sys.executable, "deploy/image/nginx.py", "--app-ports", "8511", "--print"], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PEE_TRUSTED_PROXIES": "10.0.0.0/8; include /etc/passwd"},
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == "" and "'10.0.0.0/8;' is not an IP address or CIDR range" in bad.stderr


def free_ports(n: int) -> int:
    """A first port of `n` consecutive ones that are free now."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = s.getsockname()[1]
        if first + n < 65000 and all(_free(first + i) for i in range(n)):
            return first
    raise RuntimeError("no free ports")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


FAKE_APP = """import http.server, os, sys
port = int(next(a.split("=")[1] for a in sys.argv if a.startswith("--server.port=")))
held = []
def take():  # one trainer for one address, counted as the app counts it among the processes (core.lab.trainers)
    sys.path.insert(0, os.getcwd())
    from core.lab.trainers import AddressLocks
    locks = AddressLocks.from_env()
    lock = locks and locks.take("203.0.113.9")
    held.append(lock)
    return "unshared" if locks is None else "refused" if lock is None else "held"
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        lab = f"{os.environ.get('PEE_LAB_TRAINERS_PER_ADDRESS')} {os.environ.get('PEE_LAB_LOCK_DIR')}"
        answer = f"ok {os.getpid()}" if self.path == "/pid" else lab if self.path == "/lab" else take() if self.path == "/take" else "ok"
        self.send_response(200); self.end_headers()
        self.wfile.write(answer.encode())
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


def ask(port: int, path: str = "/_stcore/health") -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1) as r:
            return r.read().decode()
    except OSError:
        return None


def eventually(check, timeout: float = 10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if value := check():
            return value
        time.sleep(0.05)
    return check()


def test_the_entrypoint_restarts_an_app_process_that_dies_and_stops_everything_on_sigterm(tmp_path):
    """The entrypoint's own loop, with a stand-in app (answers health on its --server.port) and a
    stand-in nginx (sleeps): a killed app process is started again, the health check sees every
    process, SIGTERM ends them all, and nginx exiting ends the container."""
    (tmp_path / "app.py").write_text(FAKE_APP)
    (tmp_path / "nginx").write_text("#!/bin/sh\nexec sleep 600\n")
    (tmp_path / "nginx").chmod(0o755)
    first = free_ports(3)
    env = {
        **os.environ, "PEE_PROCESSES": "2", "PEE_PORT": str(first), "PEE_APP_PORT": str(first + 1), "PEE_RUN_DIR": str(tmp_path / "run"),
        "PEE_STREAMLIT": f"{sys.executable} {tmp_path / 'app.py'}", "PEE_NGINX": str(tmp_path / "nginx"),
        "PEE_RESTART_PAUSE": "0.1", "PEE_QUICK_RESTART_PAUSE": "0.1", "PEE_LAB_MAX_RUNS": "1",
    }  # fmt: skip
    env.pop("PEE_LAB_TRAINERS_PER_ADDRESS", None), env.pop("PEE_LAB_LOCK_DIR", None)
    proc = subprocess.Popen(["sh", str(ENTRYPOINT)], env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        pids = eventually(lambda: [ask(first + i, "/pid") for i in (1, 2)] if all(ask(first + i, "/pid") for i in (1, 2)) else None)
        assert pids, "both app processes answer"
        # two processes of one trainer each: one address may hold one of the two, counted in one lock folder they share
        lab = ask(first + 1, "/lab")
        assert lab == ask(first + 2, "/lab") and lab.startswith("1 /dev/shm/pee-explorer-trainers.")
        checked = {**env, "PEE_PORT": str(first + 1)}  # nginx is a stand-in here: its port is an app's
        health = subprocess.run([sys.executable, "deploy/image/healthcheck.py"], cwd=ROOT, env=checked, capture_output=True, text=True)
        assert health.returncode == 0, health.stdout
        os.kill(int(pids[0].split()[1]), signal.SIGKILL)
        again = eventually(lambda: (a := ask(first + 1, "/pid")) and a != pids[0] and a)
        assert again and again != pids[0] and ask(first + 2, "/pid") == pids[1]  # started again; the other untouched
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert eventually(lambda: not any(ask(first + i) for i in (1, 2)), 5)
        assert "exited with status 137; starting it again" in proc.stderr.read()
        assert not Path(lab.split(" ", 1)[1]).exists()  # its lock folder removed with it
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    proc = subprocess.Popen(["sh", str(ENTRYPOINT)], env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert eventually(lambda: ask(first + 1) and ask(first + 2))
        nginx_up = ["pgrep", "-s", str(proc.pid), "-f", "sleep 600"]  # the entrypoint starts nginx after the apps answer: wait for it
        assert eventually(lambda: subprocess.run(nginx_up, capture_output=True).returncode == 0)
        subprocess.run(["pkill", "-KILL", "-s", str(proc.pid), "-f", "sleep 600"], check=True)  # the stand-in nginx of this session dies
        assert proc.wait(10) == 1 and eventually(lambda: not any(ask(first + i) for i in (1, 2)), 5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_the_entrypoint_counts_an_addresss_trainers_across_processes_with_its_run_dir_read_only(tmp_path):
    """The image on a read-only root filesystem: RUN_DIR (made by the Dockerfile) mounted read-only, here
    in a user and mount namespace of its own. The entrypoint still starts its processes, and they share the
    per-address count in a lock folder outside RUN_DIR: an address holding the trainer of one process is
    refused the other's (two processes of one trainer: one address may hold one)."""
    probe = subprocess.run(["unshare", "-r", "-m", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip(f"no user namespace to mount RUN_DIR read-only in: {probe.stderr.decode().strip()}")
    (tmp_path / "app.py").write_text(FAKE_APP)
    (tmp_path / "nginx").write_text("#!/bin/sh\nexec sleep 600\n")
    (tmp_path / "nginx").chmod(0o755)
    run = tmp_path / "run"
    run.mkdir()
    first = free_ports(3)
    env = {
        **os.environ, "PEE_PROCESSES": "2", "PEE_PORT": str(first), "PEE_APP_PORT": str(first + 1), "PEE_RUN_DIR": str(run),
        "PEE_STREAMLIT": f"{sys.executable} {tmp_path / 'app.py'}", "PEE_NGINX": str(tmp_path / "nginx"), "PEE_LAB_MAX_RUNS": "1",
    }  # fmt: skip
    env.pop("PEE_LAB_TRAINERS_PER_ADDRESS", None), env.pop("PEE_LAB_LOCK_DIR", None)
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && ! touch "$1/w" 2>/dev/null && exec sh "$2"'
    proc = subprocess.Popen(
        ["unshare", "-r", "-m", "sh", "-c", script, "sh", str(run), str(ENTRYPOINT)], env=env, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert eventually(lambda: ask(first + 1) and ask(first + 2)), "both app processes answer"
        lab = ask(first + 1, "/lab")
        assert lab == ask(first + 2, "/lab") and not lab.split(" ", 1)[1].startswith(str(run))
        assert ask(first + 1, "/take") == "held" and ask(first + 2, "/take") == "refused"
    finally:
        _stop(proc)
    assert proc.returncode == 0, proc.stderr.read()
    assert list(run.iterdir()) == []  # nothing was written there


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def test_the_images_nginx_hides_the_metrics_and_keeps_a_browser_on_one_process(tmp_path):
    """The entrypoint with Debian's nginx (scripts/test.sh installs it) in front of two stand-in apps
    that answer every path: /_stcore/metrics, in any spelling nginx decodes to it, is nginx's 404 and
    never reaches an app; a first visit gets a routing cookie, and with it every request reaches the
    same app process; the image's health check passes with nginx and both processes up."""
    (tmp_path / "app.py").write_text(FAKE_APP)
    first = free_ports(3)
    env = {
        **os.environ, "PEE_PROCESSES": "2", "PEE_PORT": str(first), "PEE_APP_PORT": str(first + 1), "PEE_LISTEN": "127.0.0.1",
        "PEE_RUN_DIR": str(tmp_path / "run"), "PEE_STREAMLIT": f"{sys.executable} {tmp_path / 'app.py'}", "PEE_NGINX": NGINX,
    }  # fmt: skip
    proc = subprocess.Popen(["sh", str(ENTRYPOINT)], env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert eventually(lambda: all(ask(p) == "ok" for p in (first, first + 1, first + 2)), 20), "nginx and both app processes answer"
        assert ask(first + 1, "/_stcore/metrics") == "ok"  # the stand-in answers it, as Streamlit does
        for path in ("/_stcore/metrics", "/_stcore//metrics", "/_stcore/%6detrics", "/_stcore/metrics?x=1"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"http://127.0.0.1:{first}{path}", timeout=2)
            assert refused.value.code == 404 and refused.value.read() != b"ok", path  # nginx's own answer: the stand-in answers every path
            assert refused.value.headers["Server"] == "nginx" and "X-Upstream" not in refused.value.headers  # no version, no replica named
        with urllib.request.urlopen(f"http://127.0.0.1:{first}/pid", timeout=2) as r:
            cookie = r.headers["Set-Cookie"].split(";")[0]
        assert cookie.startswith("st_route=") and len(cookie) > len("st_route=") + 8
        seen = set()
        for _ in range(6):
            with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{first}/pid", headers={"Cookie": cookie}), timeout=2) as r:
                assert r.headers.get("Set-Cookie") is None  # the cookie is kept, not replaced
                seen.add(r.read().decode())  # "ok <pid>": the process that answered
        assert len(seen) == 1  # one process for this browser
        health = subprocess.run([sys.executable, "deploy/image/healthcheck.py"], cwd=ROOT, env=env, capture_output=True, text=True)
        assert health.returncode == 0, health.stdout
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """Stop an entrypoint still running: SIGTERM, as docker stop sends it, then its whole session killed after 10 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _status(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.parametrize("trusted", ["", "127.0.0.1"])
def test_the_images_upload_limit_keys_on_the_client_a_trusted_proxy_names(tmp_path, trusted):
    """Debian's nginx from the entrypoint, with PEE_TRUSTED_PROXIES unset (nobody's X-Forwarded-For is
    believed) and set to loopback (this test is the front proxy): one client's flood of uploads puts
    it at 429; another client behind the same proxy is refused too only when the proxy is not trusted,
    and a client cannot leave its limit by sending an X-Forwarded-For of its own."""
    (tmp_path / "app.py").write_text(FAKE_APP)
    first = free_ports(2)
    env = {
        **os.environ, "PEE_PROCESSES": "1", "PEE_PORT": str(first), "PEE_APP_PORT": str(first + 1), "PEE_LISTEN": "127.0.0.1",
        "PEE_RUN_DIR": str(tmp_path / "run"), "PEE_STREAMLIT": f"{sys.executable} {tmp_path / 'app.py'}", "PEE_NGINX": NGINX,
        "PEE_TRUSTED_PROXIES": trusted,
    }  # fmt: skip
    proc = subprocess.Popen(["sh", str(ENTRYPOINT)], env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def put(client: str, i: int) -> int:
        url = f"http://127.0.0.1:{first}/_stcore/upload_file/s/f{i}"
        return _status(urllib.request.Request(url, data=b"x", method="PUT", headers={"X-Forwarded-For": client}))

    try:
        assert eventually(lambda: ask(first) == "ok", 20), "nginx and the app process answer"
        flood = [put("203.0.113.1", i) for i in range(8)]
        assert 429 not in flood[:7] and flood[7] == 429  # the burst of 6 and the first at the rate, then refused
        other = put("203.0.113.2", 8)
        assert (other == 429) is (not trusted)  # another visitor behind the proxy: its own limit only when the proxy is trusted
        assert put("203.0.113.3, 203.0.113.1", 9) == 429  # the flooding client with a forged address before the proxy's hop: still itself
    finally:
        _stop(proc)
