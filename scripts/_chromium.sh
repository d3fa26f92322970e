# Sourced by scripts/test.sh: ensure_chromium.
# The viewer's browser tests (tests/view) drive Debian's Chromium through Playwright; without it
# they skip. ensure_chromium installs it with apt-get when it is missing and that is possible
# (root, apt-get, AUTOCUE_NO_CHROMIUM unset), says what it installs and why, and reports what is
# there afterwards: it checks the binary, not apt-get's exit code alone (another apt run holding
# the dpkg lock, or a failing update of an unrelated list, can fail apt-get while chromium gets
# installed). AUTOCUE_CHROMIUM names another binary, as for tests/view.

ensure_chromium() {
  local bin="${AUTOCUE_CHROMIUM:-/usr/bin/chromium}"
  if [ -x "$bin" ]; then
    echo "== chromium: $bin (for the browser tests of tests/view)"
    return 0
  fi
  if [ "${AUTOCUE_NO_CHROMIUM:-}" = 1 ]; then
    echo "== chromium: not installed (AUTOCUE_NO_CHROMIUM=1): the browser tests of tests/view will be skipped"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "== chromium: not installed, and installing it takes root and apt-get: the browser tests of tests/view" \
         "will be skipped (install Debian's chromium package, or set AUTOCUE_CHROMIUM=PATH)"
    return 0
  fi
  echo "== chromium: apt-get install chromium: Debian's Chromium with its dependencies (about 150 packages)," \
       "for the browser tests of tests/view (AUTOCUE_NO_CHROMIUM=1 skips this)"
  local log
  log="$(mktemp)"
  # DPkg::Lock::Timeout: wait up to 10 minutes for another apt or dpkg run instead of failing at once
  local apt=(apt-get -o DPkg::Lock::Timeout=600)
  { "${apt[@]}" install -y -qq chromium || { "${apt[@]}" update -qq && "${apt[@]}" install -y -qq chromium; }; } \
    >"$log" 2>&1 || true
  if [ -x "$bin" ]; then
    echo "   installed: $bin"
  else
    echo "   could not install chromium: the browser tests of tests/view will be skipped; apt-get said:"
    tail -n 5 "$log" | sed 's/^/     /'
  fi
  rm -f "$log"
}
