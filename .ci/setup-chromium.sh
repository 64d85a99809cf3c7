# Chromium for the web UI browser tests (sourced by .ci/run; idempotent, quick when installed).
# Playwright drives Debian's chromium at /usr/bin/chromium; it must never download a browser itself.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup-chromium: chromium missing; installing Debian's package" >&2
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    sudo -n apt-get update -qq
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  fi
  echo "setup-chromium: $(chromium --version 2>/dev/null || echo 'chromium installed')" >&2
fi
