# Sourced by scripts/test.sh: ensure_chromium, ensure_bubblewrap (both on ensure_debian_package).
# The viewer's browser tests (tests/view) drive Debian's Chromium through Playwright, the sandbox
# tests (tests/isolation, `autocue run --sandbox bwrap`) run bubblewrap; without them they skip.
# ensure_debian_package installs a package with apt-get when its binary is missing and that is
# possible (root, apt-get, the package's AUTOCUE_NO_* variable unset), says what it installs and
# why, and reports what is there afterwards: it checks the binary, not apt-get's exit code alone
# (another apt run holding the dpkg lock, or a failing update of an unrelated list, can fail
# apt-get while the package gets installed). AUTOCUE_CHROMIUM names another binary, as for tests/view.

# ensure_debian_package PACKAGE BINARY FOR WHAT NO_VAR
#   PACKAGE: the Debian package; BINARY: the file it installs; FOR: the tests that need it;
#   WHAT: what the package is, for the message; NO_VAR: the variable that skips the install when set to 1.
ensure_debian_package() {
  local pkg="$1" bin="$2" for="$3" what="$4" no_var="$5"
  if [ -x "$bin" ]; then
    echo "== $pkg: $bin (for $for)"
    return 0
  fi
  if [ "${!no_var:-}" = 1 ]; then
    echo "== $pkg: not installed ($no_var=1): $for will be skipped"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "== $pkg: not installed, and installing it takes root and apt-get: $for" \
         "will be skipped (install Debian's $pkg package)"
    return 0
  fi
  echo "== $pkg: apt-get install $pkg: $what, for $for ($no_var=1 skips this)"
  local log
  log="$(mktemp)"
  # DPkg::Lock::Timeout: wait up to 10 minutes for another apt or dpkg run instead of failing at once
  local apt=(apt-get -o DPkg::Lock::Timeout=600)
  { "${apt[@]}" install -y -qq "$pkg" || { "${apt[@]}" update -qq && "${apt[@]}" install -y -qq "$pkg"; }; } \
    >"$log" 2>&1 || true
  if [ -x "$bin" ]; then
    echo "   installed: $bin"
  else
    echo "   could not install $pkg: $for will be skipped; apt-get said:"
    tail -n 5 "$log" | sed 's/^/     /'
  fi
  rm -f "$log"
}

ensure_chromium() {
  ensure_debian_package chromium "${AUTOCUE_CHROMIUM:-/usr/bin/chromium}" "the browser tests of tests/view" \
    "Debian's Chromium with its dependencies (about 150 packages)" AUTOCUE_NO_CHROMIUM
}

ensure_bubblewrap() {
  ensure_debian_package bubblewrap /usr/bin/bwrap "the sandbox tests of tests/isolation" \
    "bubblewrap, the sandbox of autocue run --sandbox bwrap (one small package)" AUTOCUE_NO_BUBBLEWRAP
}
