# netvigil — two commands do everything on a fresh Debian 12 machine with Swift installed:
#   make run    install missing system packages (as root), build release, run the daemon (Ctrl-C stops it)
#   make test   install system packages and test tools, run the whole test suite (make check, the system tier, the package)
#   make check  build and run the in-process tier only: no root, no tools, no servers (a few minutes)
# Deployment (see docs/fleet.md):
#   make install [PREFIX=/usr/local] [DESTDIR=...]   release binary, systemd unit, config, man page, completions
#   make deb                                         .build/deb/netvigil_<version>_<arch>.deb (dpkg-deb)
#   make deb-check                                   make deb, then lintian (no errors or warnings allowed)
#   make debug-symbols                               the release binary's debug symbols, by build id (install strips them)
SWIFT ?= swift
CONFIG ?=
PREFIX ?= /usr/local
DESTDIR ?=
# The release build's own build directory, apart from .build: `make test` builds it while the system tier's
# `swift test` holds .build's lock.
RELEASE_SCRATCH := .build/rel
RELEASE_BINARY := $(RELEASE_SCRATCH)/release/netvigil
# The binary install-files and deb package; `make install` and `make deb` build it first.
BINARY ?= $(RELEASE_BINARY)
# Release builds link the Swift runtime statically and carry no $ORIGIN RUNPATH: the binary needs only Debian's
# libraries (see deploy/debian). Benchmarks/run.sh builds with these flags too (`make release-flags`).
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath

VERSION := $(shell sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/NetVigilAgent/NetVigilVersion.swift)
BINDIR := $(PREFIX)/bin
DATADIR := $(PREFIX)/share/netvigil
MANDIR := $(PREFIX)/share/man/man1
UNITDIR := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
SYSCONFDIR := /etc/netvigil
# Debian's zsh reads packaged completions from vendor-completions and local ones from site-functions.
ZSHDIR := $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
# Generated from the binary (man page, shell completions) for install-files.
GENERATED := .build/deploy

# System libraries netvigil links against, the Public Suffix List the webpki profile reads at run time, and binutils
# and xz for the installed binary (deploy/strip-binary.sh).
APT_BUILD := libmnl-dev libssl-dev libsqlite3-dev pkg-config publicsuffix binutils xz-utils
# Tools the tests drive: OpenSSL CLI, ip(8) for namespaces, nginx, a JSON Schema validator, curl, promtool and amtool,
# systemd-analyze, setpriv (util-linux), dpkg-deb, dpkg-shlibdeps and lintian for the package, gdb and binutils for the
# split debug symbols, squid (the proxy tests), pip (for PIP_TEST), python3-cryptography (the webpki test chains),
# PostgreSQL 15 and pgbouncer (the fleet tests: Tests/IntegrationTests/Fleet, transaction pooling in front of PostgreSQL),
# socat (a network namespace reaches the host's nginx and PostgreSQL through their unix sockets: FleetHubTests),
# and for the trust differential test
# (Tests/TrustDifferential): Go (its chain generator and crypto/x509 validator), gnutls-cli (gnutls-bin), NSS's
# certutil and tstclnt (libnss3-tools), easy-rsa, mkcert and cfssl (golang-cfssl) to make chains, and libfaketime.
APT_TEST := openssl iproute2 nginx python3-jsonschema curl procps prometheus prometheus-alertmanager systemd util-linux \
	dpkg dpkg-dev lintian chromium gdb binutils squid python3-pip python3-cryptography postfix dovecot-imapd dovecot-pop3d \
	slapd ldap-utils postgresql pgbouncer socat nghttp2-server golang-go gnutls-bin libnss3-tools easy-rsa mkcert golang-cfssl faketime
# Test tools from PyPI: mitmproxy's mitmdump, the TLS-intercepting proxy of the proxy tests.
PIP_TEST := mitmproxy
# The trust differential test's pyca validator needs cryptography >= 42 (cryptography.x509.verification); Debian 12's
# python3-cryptography is 38 and stays as it is (the webpki test chains sign with SHA-1, which 42+ refuses), so when
# python3 imports an older one, pip installs a newer one into TRUSTDIFF_PYTHON, which only Tests/TrustDifferential
# puts on its path.
TRUSTDIFF_PYTHON := .build/trustdiff-python

# The two test tiers (DEVELOPERS.md), as `swift test --filter` patterns over TARGET.CLASS/METHOD: the module-named
# targets run in process (no fork or exec of netvigil, servers or tools, no root, no network namespace), and
# IntegrationTests is the system tier (the real binary, nginx, Postfix, openssl, python3, Chromium, namespaces, ...).
CHECK_TESTS := '^NetVigil[A-Za-z]*Tests\.'
SYSTEM_TESTS := '^IntegrationTests\.'

.PHONY: all deps test-deps build release release-flags run check test bench clean install install-files generated deb deb-check debug-symbols

all: build

# Installs what is missing; without root, prints the exact apt-get line and stops.
define ensure_packages
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "missing system packages; run as root:"; \
	    echo "  apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

# Installs the PyPI packages that python3's pip does not have yet (Debian's own python3 needs
# --break-system-packages for that).
define ensure_pip_packages
	@for p in $(1); do \
	  python3 -m pip show -q "$$p" >/dev/null 2>&1 && continue; \
	  echo "pip installing: $$p"; \
	  python3 -m pip install -q "$$p" >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages "$$p" || exit 1; \
	done
endef

deps:
	$(call ensure_packages,$(APT_BUILD))

test-deps: deps
	$(call ensure_packages,$(APT_TEST))
	$(call ensure_pip_packages,$(PIP_TEST))
	@PYTHONPATH=$(TRUSTDIFF_PYTHON) python3 -c 'import sys, cryptography; sys.exit(int(cryptography.__version__.split(".")[0]) < 42)' \
	  2>/dev/null || { echo "pip installing: cryptography>=42 into $(TRUSTDIFF_PYTHON)"; \
	  python3 -m pip install -q --upgrade --target $(TRUSTDIFF_PYTHON) "cryptography>=42" || exit 1; }

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(RELEASE_SCRATCH) --product netvigil

# Prints the release build's flags, for scripts that build the same binary (Benchmarks/run.sh).
release-flags:
	@echo '$(RELEASE_FLAGS)'

run: release
	exec $(RELEASE_BINARY) run $(if $(CONFIG),--config $(CONFIG))

# The fast door: build, then every in-process test (the module-named targets); needs only the build packages.
check: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter $(CHECK_TESTS)

# Everything: `make check`, then the system tier, then the package. The install test runs `make install-files`, which
# needs generate-manual: it is built here, while no `swift test` holds .build's lock (a build started from inside the
# test run would wait for that lock until it timed out). The static release build (what `make run` builds, so CI
# proves it links) runs beside the system tier at the lowest priority, in its own build directory: the system tier
# mostly waits on servers, and the build takes the idle core. Then the package test that needs that binary: the .deb
# from deploy/debian/build-deb.sh, lintian as `make deb-check` runs it, and the packaged binary run without the
# toolchain.
PACKAGE_TEST := IntegrationTests.DeployPackageTests/testDebPackageIsLintianCleanAndRunsWithoutTheToolchain
test: test-deps
	$(MAKE) --no-print-directory check
	$(SWIFT) build --product generate-manual
	@mkdir -p .build; echo "building the release binary beside the system tier (log: .build/release-build.log)"
	@nice -n 19 $(MAKE) --no-print-directory release > .build/release-build.log 2>&1 & release=$$!; \
	  $(SWIFT) test --skip-build --filter $(SYSTEM_TESTS) --skip $(PACKAGE_TEST); tests=$$?; \
	  wait $$release; built=$$?; \
	  if [ $$built -ne 0 ]; then tail -n 40 .build/release-build.log; echo "the release build failed (.build/release-build.log)"; fi; \
	  [ $$tests -eq 0 ] && [ $$built -eq 0 ]
	$(SWIFT) test --skip-build --filter $(PACKAGE_TEST)

# Release-build benchmarks; the current figures go to docs/performance.md.
bench: test-deps
	bash Benchmarks/run.sh

# Man page (swift-argument-parser's generate-manual, the tool behind `swift package plugin generate-manual`, run on
# the binary directly so only netvigil is built) and bash/zsh/fish completions, generated from $(BINARY).
generated:
	@test -x "$(BINARY)" || { echo "$(BINARY) is missing: run make release (or pass BINARY=...)"; exit 1; }
	test -x .build/debug/generate-manual || $(SWIFT) build --product generate-manual
	rm -rf $(GENERATED) && mkdir -p $(GENERATED)/man $(GENERATED)/completions
	.build/debug/generate-manual "$(BINARY)" --date $$(date -u -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s) +%Y-%m-%d) \
	  --output-directory $(GENERATED)/man
	"$(BINARY)" --generate-completion-script bash | sed '1{/^#!/d}' > $(GENERATED)/completions/netvigil.bash
	"$(BINARY)" --generate-completion-script zsh > $(GENERATED)/completions/_netvigil
	"$(BINARY)" --generate-completion-script fish > $(GENERATED)/completions/netvigil.fish

# Everything `make install` puts in place, from an existing $(BINARY) (no build). The example configuration goes to
# /etc/netvigil/netvigil.yml only when none exists there; a copy is always in $(DATADIR).
install-files: generated
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	  $(DESTDIR)$(DATADIR)/dashboards $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(SYSCONFDIR) \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(ZSHDIR) \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	bash deploy/strip-binary.sh "$(BINARY)" $(DESTDIR)$(BINDIR)/netvigil
	sed 's|/usr/bin/netvigil|$(BINDIR)/netvigil|g' deploy/systemd/netvigil.service > $(DESTDIR)$(UNITDIR)/netvigil.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/netvigil.service
	sed 's|/usr/bin/netvigil|$(BINDIR)/netvigil|g' deploy/systemd/netvigil-hub.service > $(DESTDIR)$(UNITDIR)/netvigil-hub.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/netvigil-hub.service
	install -m 0644 deploy/systemd/netvigil.sysusers $(DESTDIR)$(SYSUSERSDIR)/netvigil.conf
	install -m 0644 $(GENERATED)/man/netvigil.1 $(DESTDIR)$(MANDIR)/netvigil.1
	install -m 0644 $(GENERATED)/completions/netvigil.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/netvigil
	install -m 0644 $(GENERATED)/completions/_netvigil $(DESTDIR)$(ZSHDIR)/_netvigil
	install -m 0644 $(GENERATED)/completions/netvigil.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/netvigil.fish
	install -m 0644 deploy/netvigil.example.yml $(DESTDIR)$(DATADIR)/netvigil.example.yml
	install -m 0644 deploy/prometheus/scrape.yml deploy/prometheus/netvigil.rules.yml deploy/prometheus/netvigil.rules.test.yml \
	  $(DESTDIR)$(DATADIR)/prometheus/
	install -m 0644 deploy/alertmanager.example.yml $(DESTDIR)$(DATADIR)/alertmanager.example.yml
	for f in dashboards/*.json; do [ -e "$$f" ] || continue; install -m 0644 "$$f" $(DESTDIR)$(DATADIR)/dashboards/; done
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/netvigil.yml ]; then \
	  echo "kept existing $(DESTDIR)$(SYSCONFDIR)/netvigil.yml (example: $(DATADIR)/netvigil.example.yml)"; \
	else \
	  install -m 0644 deploy/netvigil.example.yml $(DESTDIR)$(SYSCONFDIR)/netvigil.yml; \
	fi

# Installs on this machine (or into DESTDIR). Without DESTDIR and as root it also creates the netvigil system user
# and reloads systemd; start with `systemctl enable --now netvigil`.
install: release
	$(MAKE) --no-print-directory install-files BINARY=$(RELEASE_BINARY)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = "0" ]; then \
	  if command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/netvigil.conf; \
	  elif ! getent passwd netvigil >/dev/null; then \
	    adduser --system --group --home /var/lib/netvigil --no-create-home netvigil; fi; \
	  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	  echo "installed; start with: systemctl enable --now netvigil"; \
	fi

# A Debian package of the release binary (deploy/debian/build-deb.sh; the package tree is install-files with PREFIX=/usr).
deb: release
	bash deploy/debian/build-deb.sh $(RELEASE_BINARY) .build/deb

deb-check: deb
	lintian --fail-on error,warning --info .build/deb/netvigil_$(VERSION)_$$(dpkg --print-architecture).deb

# The release binary's debug symbols, which `make install` and the .deb strip: .build/debug-symbols/usr/lib/debug/
# .build-id/XX/YYYY.debug, found by gdb, systemd-coredump and perf through the binary's build id once copied to /.
debug-symbols: release
	bash deploy/debug-symbols.sh $(RELEASE_BINARY) .build/debug-symbols

clean:
	rm -rf .build
