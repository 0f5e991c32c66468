# netvigil — two commands do everything on a fresh Debian 12 machine with Swift installed:
#   make run    install missing system packages (as root), build release, run the daemon (Ctrl-C stops it)
#   make test   install system packages and test tools, run the whole test suite
SWIFT ?= swift
CONFIG ?=
PREFIX ?= /usr/local

# System libraries netvigil links against.
APT_BUILD := libmnl-dev libssl-dev libsqlite3-dev pkg-config
# Tools the tests drive: OpenSSL CLI, ip(8) for namespaces, nginx, a JSON Schema validator, curl.
APT_TEST := openssl iproute2 nginx python3-jsonschema curl procps prometheus

.PHONY: all deps test-deps build release run test bench clean

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

deps:
	$(call ensure_packages,$(APT_BUILD))

test-deps: deps
	$(call ensure_packages,$(APT_TEST))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product netvigil

run: release
	exec .build/release/netvigil run $(if $(CONFIG),--config $(CONFIG))

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

# Release-build benchmarks; figures go to README.md (see "Performance").
bench: test-deps
	bash Benchmarks/run.sh

clean:
	rm -rf .build
