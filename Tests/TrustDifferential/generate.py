#!/usr/bin/env python3
"""Makes the certificate chain variants of the trust differential test, one directory per case.

    python3 generate.py OUTDIR [--only NAME] [--go-bin DIR]

Each case directory holds chain.pem (the served chain, leaf first), anchors.pem (the trust anchors), leaf.key (the
leaf's private key, PEM) and case.json {"name", "host", "at" (optional RFC 3339 UTC time; absent: now), "tool",
"description"}. Chains come from the tools operators use (openssl req/x509 with Debian's defaults and with minimal
extension files, easy-rsa 3.1, mkcert, cfssl, a Go program with crypto/x509) and from pyca/cryptography builders for
the hand-made edge cases. Every tool failure stops the generator with a message naming the case.
"""
import argparse
import datetime
import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile

# `make test-deps` puts cryptography >= 42 here when python3's own is older (Debian 12's python3-cryptography is 38).
_LIBRARY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build",
                        "trustdiff-python")
if os.path.isdir(_LIBRARY) and _LIBRARY not in sys.path:
    sys.path.insert(0, _LIBRARY)

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = datetime.timezone.utc
NOW = datetime.datetime.now(UTC).replace(microsecond=0)
DAY = datetime.timedelta(days=1)
# The fixed clock of the time-dependent cases: their certificates have fixed dates around it.
T0 = datetime.datetime(2024, 6, 1, tzinfo=UTC)
LEAF_NOT_AFTER = datetime.datetime(2025, 1, 1, tzinfo=UTC)
HOST = "www.example.test"


class GenerationError(Exception):
    pass


def rfc3339(moment):
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run(arguments, cwd=None, env=None, input=None):
    result = subprocess.run(arguments, cwd=cwd, env=env, input=input, capture_output=True, text=True)
    if result.returncode != 0:
        raise GenerationError("%s failed (exit %d): %s" % (" ".join(arguments), result.returncode,
                                                          (result.stderr or result.stdout).strip()[-800:]))
    return result.stdout


# ---------------------------------------------------------------------------------------------------------------
# Keys and certificates built with pyca/cryptography.

_keys = {}


def key(kind="p256", slot=0):
    """A private key of `kind`; the same (kind, slot) gives the same key within one run (keys of one chain use
    different slots)."""
    if (kind, slot) not in _keys:
        if kind == "p256":
            _keys[kind, slot] = ec.generate_private_key(ec.SECP256R1())
        elif kind == "p384":
            _keys[kind, slot] = ec.generate_private_key(ec.SECP384R1())
        elif kind.startswith("rsa"):
            _keys[kind, slot] = rsa.generate_private_key(public_exponent=65537, key_size=int(kind[3:]))
        elif kind == "ed25519":
            _keys[kind, slot] = ed25519.Ed25519PrivateKey.generate()
        else:
            raise GenerationError("unknown key kind " + kind)
    return _keys[kind, slot]


class Cert:
    def __init__(self, certificate, private_key):
        self.cert = certificate
        self.key = private_key

    @property
    def pem(self):
        return self.cert.public_bytes(serialization.Encoding.PEM).decode()

    @property
    def der(self):
        return self.cert.public_bytes(serialization.Encoding.DER)


_serial = [0x1000]


def next_serial():
    _serial[0] += 1
    return _serial[0]


def hash_for(private_key, name):
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        return None
    return {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha1": hashes.SHA1()}[name]


def make(cn, k, issuer=None, ca=False, bc="critical", pathlen=None, ku="default", ku_critical=True, eku="default",
         dns=None, ips=None, ski=True, aki="keyid", permitted=None, excluded=None, nc_on=True, not_before=None,
         not_after=None, hash_name="sha256", subject=None, extra=()):
    """One certificate. `issuer` None: self-signed. bc: "critical", "noncritical" or None (no extension).
    ku: "default" (CA: keyCertSign+cRLSign; leaf: digitalSignature, plus keyEncipherment for RSA), None, or a list.
    eku: "default" (leaf: serverAuth; CA: none), None or a list of OIDs. aki: "keyid", None, "wrong", "issuer_serial".
    permitted/excluded: lists of "dns:NAME" / "ip:NET"."""
    name = subject or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                                 x509.NameAttribute(NameOID.ORGANIZATION_NAME, "netvigil differential")])
    issuer_name = issuer.cert.subject if issuer else name
    signer = issuer.key if issuer else k
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(issuer_name).public_key(k.public_key())
               .serial_number(next_serial())
               .not_valid_before(not_before or NOW - DAY)
               .not_valid_after(not_after or (NOW + 3650 * DAY if ca else NOW + 90 * DAY)))
    if bc is not None:
        builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=pathlen if ca else None),
                                        critical=(bc == "critical"))
    if ku == "default":
        ku = ["key_cert_sign", "crl_sign"] if ca else (
            ["digital_signature", "key_encipherment"] if isinstance(k, rsa.RSAPrivateKey) else ["digital_signature"])
    if ku is not None:
        flags = {f: False for f in ["digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
                                    "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"]}
        for f in ku:
            flags[f] = True
        builder = builder.add_extension(x509.KeyUsage(**flags), critical=ku_critical)
    if eku == "default":
        eku = None if ca else [ExtendedKeyUsageOID.SERVER_AUTH]
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
    names = [x509.DNSName(d) for d in (dns or [])] + [x509.IPAddress(ipaddress.ip_address(i)) for i in (ips or [])]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    if ski:
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(k.public_key()), critical=False)
    if aki and issuer is not None:
        if aki == "keyid":
            value = x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key())
        elif aki == "wrong":
            value = x509.AuthorityKeyIdentifier(b"\x5a" * 20, None, None)
        elif aki == "issuer_serial":
            value = x509.AuthorityKeyIdentifier(None, [x509.DirectoryName(issuer.cert.issuer)],
                                                issuer.cert.serial_number)
        else:
            raise GenerationError("unknown aki " + aki)
        builder = builder.add_extension(value, critical=False)
    if permitted or excluded:
        def subtrees(items):
            if not items:
                return None
            out = []
            for item in items:
                kind, _, value = item.partition(":")
                out.append(x509.DNSName(value) if kind == "dns" else x509.IPAddress(ipaddress.ip_network(value)))
            return out
        builder = builder.add_extension(x509.NameConstraints(subtrees(permitted), subtrees(excluded)), critical=True)
    for extension, critical in extra:
        builder = builder.add_extension(extension, critical=critical)
    return Cert(builder.sign(signer, hash_for(signer, hash_name)), k)


# DER surgery, for what the builders cannot make (v1 certificates, a broken signature).

def _tlv(data, offset):
    length = data[offset + 1]
    header = 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[offset + 2:offset + 2 + count], "big")
        header += count
    return header, length


def _der(tag, body):
    if len(body) < 0x80:
        return bytes([tag, len(body)]) + body
    raw = len(body).to_bytes((len(body).bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(raw)]) + raw + body


def _split(der):
    """(tbs, signatureAlgorithm, signatureValue) elements of a certificate, each with its header."""
    header, _ = _tlv(der, 0)
    parts, offset = [], header
    while offset < len(der):
        h, n = _tlv(der, offset)
        parts.append(der[offset:offset + h + n])
        offset += h + n
    return parts


def resign(der, tbs, signer, algorithm=None, hash_algorithm=hashes.SHA256()):
    if algorithm is None:
        algorithm = _split(der)[1]
    if isinstance(signer, ec.EllipticCurvePrivateKey):
        signature = signer.sign(tbs, ec.ECDSA(hash_algorithm))
    elif isinstance(signer, rsa.RSAPrivateKey):
        signature = signer.sign(tbs, padding.PKCS1v15(), hash_algorithm)
    else:
        signature = signer.sign(tbs)
    return x509.load_der_x509_certificate(_der(0x30, tbs + algorithm + _der(0x03, b"\x00" + signature)))


def as_v1(c, signer):
    """The certificate as version 1: no version field and no extensions (make it without extensions)."""
    tbs = _split(c.der)[0]
    header, _ = _tlv(tbs, 0)
    body = tbs[header:]
    if body[0] == 0xA0:
        h, n = _tlv(body, 0)
        body = body[h + n:]
    return Cert(resign(c.der, _der(0x30, body), signer), c.key)


ECDSA_SHA1 = bytes.fromhex("300906072a8648ce3d0401")
RSA_SHA1 = bytes.fromhex("300d06092a864886f70d0101050500")


def with_sha1(c, signer):
    """The certificate signed again with SHA-1 (pyca/cryptography no longer signs with SHA-1 itself)."""
    algorithm = ECDSA_SHA1 if isinstance(signer, ec.EllipticCurvePrivateKey) else RSA_SHA1
    tbs = _split(c.der)[0]
    elements = _split(tbs)
    elements[2 if elements[0][0] == 0xA0 else 1] = algorithm
    return Cert(resign(c.der, _der(0x30, b"".join(elements)), signer, algorithm, hashes.SHA1()), c.key)


def broken_signature(c):
    der = bytearray(c.der)
    der[-5] ^= 0x01
    return Cert(x509.load_der_x509_certificate(bytes(der)), c.key)


# ---------------------------------------------------------------------------------------------------------------
# Cases.

class Case:
    def __init__(self, name, tool, description, host=HOST, at=None):
        self.name, self.tool, self.description, self.host, self.at = name, tool, description, host, at


CASES = []


def case(name, tool, description, host=HOST, at=None):
    def register(function):
        CASES.append((Case(name, tool, description, host, at), function))
        return function
    return register


def write_case(directory, c, chain_pems, anchor_pems, leaf_key_pem):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "chain.pem"), "w") as f:
        f.write("".join(p if p.endswith("\n") else p + "\n" for p in chain_pems))
    with open(os.path.join(directory, "anchors.pem"), "w") as f:
        f.write("".join(p if p.endswith("\n") else p + "\n" for p in anchor_pems))
    with open(os.path.join(directory, "leaf.key"), "w") as f:
        f.write(leaf_key_pem)
    os.chmod(os.path.join(directory, "leaf.key"), 0o600)
    meta = {"name": c.name, "host": c.host, "tool": c.tool, "description": c.description}
    if c.at is not None:
        meta["at"] = rfc3339(c.at)
    with open(os.path.join(directory, "case.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def key_pem(k):
    return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                           serialization.NoEncryption()).decode()


def pyca(chain, anchors):
    """(chain PEMs, anchor PEMs, leaf key PEM) from Cert objects; the leaf is chain[0]."""
    return [c.pem for c in chain], [a.pem for a in anchors], key_pem(chain[0].key)


def two_tier(leaf_kind="p256", ca_kind="p256", **leaf_options):
    root = make("Root", key(ca_kind, 1), ca=True)
    inter = make("Intermediate", key(ca_kind, 2), issuer=root, ca=True)
    options = {"dns": [HOST]}
    options.update(leaf_options)
    leaf = make(HOST, key(leaf_kind, 3), issuer=inter, **options)
    return root, inter, leaf


def standard(**leaf_options):
    root, inter, leaf = two_tier(**leaf_options)
    return pyca([leaf, inter], [root])


# --- pyca/cryptography: baseline and host names ----------------------------------------------------------------

@case("pyca-baseline", "pyca", "root -> intermediate -> leaf, every extension as a public CA would set it")
def _(c):
    return standard()


@case("wrong-host", "pyca", "baseline chain checked for a name the leaf does not carry", host="other.example.test")
def _(c):
    return standard()


@case("untrusted-root", "pyca", "baseline chain, anchors hold an unrelated root")
def _(c):
    root, inter, leaf = two_tier()
    other = make("Unrelated Root", key("p256", 9), ca=True)
    return pyca([leaf, inter], [other])


@case("cn-only-leaf", "pyca", "leaf names the host only in its subject CN, no subjectAltName")
def _(c):
    return standard(dns=None)


@case("san-mismatch-cn-match", "pyca", "SAN names another host, the CN names the checked host")
def _(c):
    return standard(dns=["other.example.test"])


@case("ip-san", "pyca", "IP address SAN 127.0.0.1, checked for the IP literal", host="127.0.0.1")
def _(c):
    return standard(dns=None, ips=["127.0.0.1"])


@case("ip-wrong", "pyca", "IP SAN 127.0.0.1, checked for 127.0.0.2", host="127.0.0.2")
def _(c):
    return standard(dns=None, ips=["127.0.0.1"])


@case("ip-as-dns-san", "pyca", "the IP literal written as a dNSName SAN, no iPAddress SAN", host="127.0.0.1")
def _(c):
    return standard(dns=["127.0.0.1"])


@case("ip-cn-only", "pyca", "CN=127.0.0.1 and no subjectAltName", host="127.0.0.1")
def _(c):
    root, inter, leaf = two_tier()
    leaf = make("127.0.0.1", key("p256", 3), issuer=inter)
    return pyca([leaf, inter], [root])


@case("wildcard-valid", "pyca", "*.example.test checked for www.example.test")
def _(c):
    return standard(dns=["*.example.test"])


@case("wildcard-apex", "pyca", "*.example.test checked for example.test", host="example.test")
def _(c):
    return standard(dns=["*.example.test"])


@case("wildcard-two-labels", "pyca", "*.example.test checked for a.b.example.test", host="a.b.example.test")
def _(c):
    return standard(dns=["*.example.test"])


@case("wildcard-tld", "pyca", "*.com checked for example.com", host="example.com")
def _(c):
    return standard(dns=["*.com"])


@case("wildcard-partial", "pyca", "a*.example.com checked for abc.example.com", host="abc.example.com")
def _(c):
    return standard(dns=["a*.example.com"])


@case("wildcard-not-leftmost", "pyca", "www.*.example.test checked for www.a.example.test", host="www.a.example.test")
def _(c):
    return standard(dns=["www.*.example.test"])


# --- key identifiers -------------------------------------------------------------------------------------------

@case("aki-missing-leaf", "pyca", "leaf without authorityKeyIdentifier")
def _(c):
    return standard(aki=None)


@case("aki-missing-all", "pyca", "no certificate carries authorityKeyIdentifier")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, aki=None)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST], aki=None)
    return pyca([leaf, inter], [root])


@case("aki-wrong-keyid", "pyca", "leaf's authorityKeyIdentifier keyid matches no certificate")
def _(c):
    return standard(aki="wrong")


@case("aki-issuer-serial", "pyca", "leaf's authorityKeyIdentifier has only authorityCertIssuer + serial, no keyid")
def _(c):
    return standard(aki="issuer_serial")


@case("ski-missing-root", "pyca", "root without subjectKeyIdentifier (the intermediate's AKI still has a keyid)")
def _(c):
    root = make("Root", key("p256", 1), ca=True, ski=False)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("ski-missing-intermediate", "pyca", "intermediate without subjectKeyIdentifier, leaf without AKI")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, ski=False)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST], aki=None)
    return pyca([leaf, inter], [root])


# --- CA certificates -------------------------------------------------------------------------------------------

@case("bc-noncritical-intermediate", "pyca", "intermediate's basicConstraints CA:TRUE not marked critical")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, bc="noncritical")
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("bc-noncritical-root", "pyca", "root's basicConstraints CA:TRUE not marked critical")
def _(c):
    root = make("Root", key("p256", 1), ca=True, bc="noncritical")
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("bc-missing-root", "pyca", "v3 root without basicConstraints")
def _(c):
    root = make("Root", key("p256", 1), ca=True, bc=None)
    leaf = make(HOST, key("p256", 3), issuer=root, dns=[HOST])
    return pyca([leaf], [root])


@case("bc-missing-intermediate", "pyca", "v3 intermediate without basicConstraints")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, bc=None)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("intermediate-ca-false", "pyca", "intermediate with basicConstraints CA:FALSE signs the leaf")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=False, ku=["key_cert_sign"], eku=None)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("root-no-keyusage", "pyca", "root without keyUsage")
def _(c):
    root = make("Root", key("p256", 1), ca=True, ku=None)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("intermediate-no-keyusage", "pyca", "intermediate without keyUsage")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, ku=None)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("intermediate-ku-no-certsign", "pyca", "intermediate's keyUsage is digitalSignature only (no keyCertSign)")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, ku=["digital_signature", "crl_sign"])
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("v1-root", "pyca", "version 1 root (no extensions) -> v3 intermediate -> leaf")
def _(c):
    root = as_v1(make("Root", key("p256", 1), ca=True, bc=None, ku=None, ski=False), key("p256", 1))
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, aki=None)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("v1-leaf", "pyca", "version 1 leaf (CN only) directly under a private v3 root")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    leaf = make(HOST, key("p256", 3), issuer=root, bc=None, ku=None, eku=None, ski=False, aki=None)
    return pyca([as_v1(leaf, root.key)], [root])


@case("v1-intermediate", "pyca", "version 1 intermediate between a v3 root and the leaf")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = as_v1(make("Intermediate", key("p256", 2), issuer=root, ca=True, bc=None, ku=None, ski=False, aki=None),
                  root.key)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST], aki=None)
    return pyca([leaf, inter], [root])


# --- path length and name constraints ---------------------------------------------------------------------------

@case("pathlen0-anchor-with-intermediate", "pyca", "anchor has pathLen 0 and an intermediate below it")
def _(c):
    root = make("Root", key("p256", 1), ca=True, pathlen=0)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("pathlen0-intermediate-leaf", "pyca", "intermediate with pathLen 0 signs the leaf directly")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, pathlen=0)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("pathlen0-intermediate-subca", "pyca", "intermediate with pathLen 0 signs another CA, which signs the leaf")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, pathlen=0)
    sub = make("Sub CA", key("p256", 4), issuer=inter, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=sub, dns=[HOST])
    return pyca([leaf, sub, inter], [root])


@case("pathlen1-intermediate-subca", "pyca", "intermediate with pathLen 1 signs another CA, which signs the leaf")
def _(c):
    root = make("Root", key("p256", 1), ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, pathlen=1)
    sub = make("Sub CA", key("p256", 4), issuer=inter, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=sub, dns=[HOST])
    return pyca([leaf, sub, inter], [root])


def constrained(where, host_names, ips=None, permitted=None, excluded=None):
    root_nc = {"permitted": permitted, "excluded": excluded} if where == "anchor" else {}
    inter_nc = {"permitted": permitted, "excluded": excluded} if where == "intermediate" else {}
    root = make("Root", key("p256", 1), ca=True, **root_nc)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, **inter_nc)
    leaf = make(host_names[0] if host_names else ips[0], key("p256", 3), issuer=inter, dns=host_names, ips=ips)
    return pyca([leaf, inter], [root])


@case("nc-anchor-permitted-inside", "pyca", "anchor permits dns:example.test, leaf www.example.test")
def _(c):
    return constrained("anchor", [HOST], permitted=["dns:example.test"])


@case("nc-anchor-permitted-outside", "pyca", "anchor permits dns:example.org, leaf www.example.test")
def _(c):
    return constrained("anchor", [HOST], permitted=["dns:example.org"])


@case("nc-intermediate-permitted-inside", "pyca", "intermediate permits dns:example.test, leaf www.example.test")
def _(c):
    return constrained("intermediate", [HOST], permitted=["dns:example.test"])


@case("nc-intermediate-permitted-outside", "pyca", "intermediate permits dns:example.org, leaf www.example.test")
def _(c):
    return constrained("intermediate", [HOST], permitted=["dns:example.org"])


@case("nc-intermediate-excluded", "pyca", "intermediate excludes dns:www.example.test, leaf www.example.test")
def _(c):
    return constrained("intermediate", [HOST], excluded=["dns:www.example.test"])


@case("nc-intermediate-excluded-other-san", "pyca",
      "intermediate excludes dns:bad.example.test; the leaf lists www.example.test and bad.example.test")
def _(c):
    return constrained("intermediate", [HOST, "bad.example.test"], excluded=["dns:bad.example.test"])


@case("nc-intermediate-ip-permitted", "pyca", "intermediate permits ip:127.0.0.0/8, leaf IP SAN 127.0.0.1",
      host="127.0.0.1")
def _(c):
    return constrained("intermediate", None, ips=["127.0.0.1"], permitted=["ip:127.0.0.0/8"])


@case("nc-intermediate-ip-excluded", "pyca", "intermediate excludes ip:127.0.0.0/8, leaf IP SAN 127.0.0.1",
      host="127.0.0.1")
def _(c):
    return constrained("intermediate", None, ips=["127.0.0.1"], excluded=["ip:127.0.0.0/8"])


# --- served chain shape and anchors -----------------------------------------------------------------------------

def three_tier():
    root = make("Root", key("p256", 1), ca=True)
    i1 = make("Intermediate 1", key("p256", 2), issuer=root, ca=True)
    i2 = make("Intermediate 2", key("p256", 4), issuer=i1, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=i2, dns=[HOST])
    return root, i1, i2, leaf


@case("order-reversed", "pyca", "root -> I1 -> I2 -> leaf served as leaf, I1, I2 (intermediates out of order)")
def _(c):
    root, i1, i2, leaf = three_tier()
    return pyca([leaf, i1, i2], [root])


@case("extra-unrelated-certs", "pyca", "served chain carries two unrelated certificates after the intermediate")
def _(c):
    root, inter, leaf = two_tier()
    other_root = make("Unrelated Root", key("p256", 9), ca=True)
    other = make("unrelated.example.org", key("p256", 8), issuer=other_root, dns=["unrelated.example.org"])
    return pyca([leaf, inter, other, other_root], [root])


@case("root-served-too", "pyca", "served chain ends with the anchor itself")
def _(c):
    root, inter, leaf = two_tier()
    return pyca([leaf, inter, root], [root])


@case("intermediate-not-served", "pyca", "server sends only the leaf; the intermediate is nowhere")
def _(c):
    root, inter, leaf = two_tier()
    return pyca([leaf], [root])


@case("anchor-is-intermediate", "pyca", "the anchor file holds only the intermediate (not self-signed)")
def _(c):
    root, inter, leaf = two_tier()
    return pyca([leaf, inter], [inter])


@case("self-signed-leaf-anchor", "pyca", "self-signed server certificate (CA:FALSE) given as its own anchor")
def _(c):
    leaf = make(HOST, key("p256", 3), dns=[HOST])
    return pyca([leaf], [leaf])


@case("cross-signed-intermediate", "pyca",
      "new root cross-signed by the old root; served leaf, intermediate, cross certificate; anchor: old root")
def _(c):
    old = make("Old Root", key("p256", 1), ca=True)
    new = make("New Root", key("p256", 5), ca=True)
    cross = make("New Root", key("p256", 5), issuer=old, ca=True)
    inter = make("Intermediate", key("p256", 2), issuer=new, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter, cross], [old])


@case("cross-expired-alternative", "pyca",
      "served leaf, intermediate, new root cross-signed by an old root (cross certificate expired); anchors: both roots")
def _(c):
    old = make("Old Root", key("p256", 1), ca=True)
    new = make("New Root", key("p256", 5), ca=True)
    cross = make("New Root", key("p256", 5), issuer=old, ca=True, not_before=NOW - 800 * DAY,
                 not_after=NOW - 30 * DAY)
    inter = make("Intermediate", key("p256", 2), issuer=new, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter, cross], [old, new])


# --- keys and signatures -----------------------------------------------------------------------------------------

for _bits in (1024, 2048, 3072, 4096):
    @case("rsa%d-leaf" % _bits, "pyca", "RSA %d-bit leaf key under a P-256 chain" % _bits)
    def _(c, bits=_bits):
        return standard(leaf_kind="rsa%d" % bits)


@case("rsa2048-chain", "pyca", "RSA 2048 everywhere")
def _(c):
    root, inter, leaf = two_tier(leaf_kind="rsa2048", ca_kind="rsa2048")
    return pyca([leaf, inter], [root])


@case("p384-chain", "pyca", "P-384 keys everywhere, ECDSA with SHA-384")
def _(c):
    root = make("Root", key("p384", 1), ca=True, hash_name="sha384")
    inter = make("Intermediate", key("p384", 2), issuer=root, ca=True, hash_name="sha384")
    leaf = make(HOST, key("p384", 3), issuer=inter, dns=[HOST], hash_name="sha384")
    return pyca([leaf, inter], [root])


@case("ed25519-chain", "pyca", "Ed25519 keys everywhere")
def _(c):
    root = make("Root", key("ed25519", 1), ca=True)
    inter = make("Intermediate", key("ed25519", 2), issuer=root, ca=True)
    leaf = make(HOST, key("ed25519", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("sha1-leaf", "pyca", "leaf signed with ECDSA-SHA1 by the intermediate")
def _(c):
    root, inter, leaf = two_tier()
    return pyca([with_sha1(leaf, inter.key), inter], [root])


@case("sha1-root-self-signature", "pyca", "the anchor's own self-signature uses SHA-1 (rest SHA-256)")
def _(c):
    root = make("Root", key("rsa2048", 1), ca=True)
    root = with_sha1(root, root.key)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True)
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST])
    return pyca([leaf, inter], [root])


@case("bad-signature", "pyca", "the leaf's signature has one bit flipped")
def _(c):
    root, inter, leaf = two_tier()
    return pyca([broken_signature(leaf), inter], [root])


@case("unknown-critical-extension", "pyca", "leaf carries an unknown extension marked critical")
def _(c):
    return standard(extra=[(x509.UnrecognizedExtension(ObjectIdentifier("1.3.6.1.4.1.55555.1"), b"\x05\x00"), True)])


# --- leaf usage ----------------------------------------------------------------------------------------------------

@case("rsa-ku-keyencipherment-only", "pyca", "RSA leaf whose keyUsage is keyEncipherment only (no digitalSignature)")
def _(c):
    return standard(leaf_kind="rsa2048", ku=["key_encipherment"])


@case("eku-clientauth-only", "pyca", "leaf's extendedKeyUsage is clientAuth only")
def _(c):
    return standard(eku=[ExtendedKeyUsageOID.CLIENT_AUTH])


@case("eku-none", "pyca", "leaf without extendedKeyUsage")
def _(c):
    return standard(eku=None)


@case("eku-any", "pyca", "leaf's extendedKeyUsage is anyExtendedKeyUsage only")
def _(c):
    return standard(eku=[ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE])


@case("leaf-is-ca", "pyca", "leaf has basicConstraints CA:TRUE (keyUsage digitalSignature + keyCertSign)")
def _(c):
    return standard(ca=True, ku=["digital_signature", "key_cert_sign"], eku=[ExtendedKeyUsageOID.SERVER_AUTH])


@case("leaf-no-basicconstraints", "pyca", "leaf without basicConstraints")
def _(c):
    return standard(bc=None)


# --- lifetimes and time ------------------------------------------------------------------------------------------

@case("lifetime-399-days", "pyca", "leaf valid 399 days (over the CA/Browser Forum 398-day limit)")
def _(c):
    return standard(not_before=NOW - DAY, not_after=NOW - DAY + 399 * DAY)


@case("lifetime-20-years", "pyca", "leaf valid 20 years")
def _(c):
    return standard(not_before=NOW - DAY, not_after=NOW - DAY + 7305 * DAY)


def fixed_time(leaf_not_before=datetime.datetime(2024, 1, 1, tzinfo=UTC), leaf_not_after=LEAF_NOT_AFTER,
               root_not_after=datetime.datetime(2040, 1, 1, tzinfo=UTC)):
    start = datetime.datetime(2020, 1, 1, tzinfo=UTC)
    root = make("Root", key("p256", 1), ca=True, not_before=start, not_after=root_not_after)
    inter = make("Intermediate", key("p256", 2), issuer=root, ca=True, not_before=start,
                 not_after=datetime.datetime(2035, 1, 1, tzinfo=UTC))
    leaf = make(HOST, key("p256", 3), issuer=inter, dns=[HOST], not_before=leaf_not_before,
                not_after=leaf_not_after)
    return pyca([leaf, inter], [root])


@case("time-valid", "pyca", "fixed-date chain judged inside every validity period", at=T0)
def _(c):
    return fixed_time()


@case("time-at-notafter", "pyca", "judged exactly at the leaf's notAfter (RFC 5280: still valid)",
      at=LEAF_NOT_AFTER)
def _(c):
    return fixed_time()


@case("time-notafter-plus-1s", "pyca", "judged one second after the leaf's notAfter",
      at=LEAF_NOT_AFTER + datetime.timedelta(seconds=1))
def _(c):
    return fixed_time()


@case("time-at-notbefore", "pyca", "judged exactly at the leaf's notBefore", at=datetime.datetime(2024, 1, 1, tzinfo=UTC))
def _(c):
    return fixed_time()


@case("time-notbefore-future", "pyca", "leaf's notBefore 7 days after the evaluation time", at=T0)
def _(c):
    return fixed_time(leaf_not_before=T0 + 7 * DAY)


@case("time-notbefore-in-12h", "pyca", "leaf's notBefore 12 hours after the evaluation time (clock skew)", at=T0)
def _(c):
    return fixed_time(leaf_not_before=T0 + DAY / 2)


@case("time-expired-leaf", "pyca", "leaf expired 30 days before the evaluation time", at=LEAF_NOT_AFTER + 30 * DAY)
def _(c):
    return fixed_time()


@case("time-expired-anchor", "pyca", "the anchor expired before the evaluation time (rest valid)", at=T0)
def _(c):
    return fixed_time(root_not_after=T0 - DAY)


# --- openssl req / x509 --------------------------------------------------------------------------------------------

OPENSSL_CNF = "/etc/ssl/openssl.cnf"


def openssl_env(directory):
    env = dict(os.environ)
    env["RANDFILE"] = os.path.join(directory, ".rnd")
    return env


def openssl_root(d, name="root", config_args=(), newkey="rsa:2048", subj="/CN=OpenSSL Root/O=netvigil differential"):
    run(["openssl", "req", "-x509", "-newkey", newkey, "-nodes", "-keyout", name + ".key", "-out", name + ".pem",
         "-days", "3650", "-subj", subj, *config_args], cwd=d)


def openssl_sign(d, name, issuer, extfile=None, section=None, newkey="rsa:2048", subj=None, days="365"):
    run(["openssl", "req", "-new", "-newkey", newkey, "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
         "-subj", subj or "/CN=%s" % HOST], cwd=d)
    arguments = ["openssl", "x509", "-req", "-in", name + ".csr", "-CA", issuer + ".pem", "-CAkey", issuer + ".key",
                 "-CAcreateserial", "-days", days, "-out", name + ".pem"]
    if extfile:
        arguments += ["-extfile", extfile]
    if section:
        arguments += ["-extensions", section]
    run(arguments, cwd=d)


def read(d, *names):
    return [open(os.path.join(d, n)).read() for n in names]


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    return name


USR_CERT_SAN = """[usr_cert_san]
basicConstraints=CA:FALSE
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid,issuer
subjectAltName=DNS:%s
""" % HOST


@case("openssl-debian-root-leaf", "openssl req -x509 + openssl x509 -req",
      "root from `openssl req -x509` with Debian's openssl.cnf (v3_ca); leaf from `openssl x509 -req` with "
      "Debian's usr_cert extensions plus subjectAltName")
def _(c, d):
    openssl_root(d)
    openssl_sign(d, "leaf", "root", write(d, "ext.cnf", USR_CERT_SAN), "usr_cert_san")
    chain, root, k = read(d, "leaf.pem", "root.pem", "leaf.key")
    return [chain], [root], k


@case("openssl-debian-intermediate", "openssl req -x509 + openssl x509 -req",
      "root (req -x509 defaults) -> intermediate signed with `-extfile /etc/ssl/openssl.cnf -extensions v3_ca` "
      "-> leaf (usr_cert + SAN)")
def _(c, d):
    openssl_root(d)
    openssl_sign(d, "inter", "root", OPENSSL_CNF, "v3_ca", subj="/CN=OpenSSL Intermediate/O=netvigil differential")
    openssl_sign(d, "leaf", "inter", write(d, "ext.cnf", USR_CERT_SAN), "usr_cert_san")
    leaf, inter, root, k = read(d, "leaf.pem", "inter.pem", "root.pem", "leaf.key")
    return [leaf, inter], [root], k


@case("openssl-debian-cn-only", "openssl req -x509 + openssl x509 -req",
      "leaf signed with Debian's usr_cert section only: CN, no subjectAltName")
def _(c, d):
    openssl_root(d)
    openssl_sign(d, "leaf", "root", OPENSSL_CNF, "usr_cert")
    chain, root, k = read(d, "leaf.pem", "root.pem", "leaf.key")
    return [chain], [root], k


@case("openssl-x509-req-no-extfile", "openssl x509 -req",
      "leaf from `openssl x509 -req -CA` without any extension file (what OpenSSL 3 adds by itself)")
def _(c, d):
    openssl_root(d)
    openssl_sign(d, "leaf", "root")
    chain, root, k = read(d, "leaf.pem", "root.pem", "leaf.key")
    return [chain], [root], k


MINIMAL_ROOT = """[req]
distinguished_name=dn
x509_extensions=root
[dn]
[root]
basicConstraints=critical,CA:TRUE
subjectKeyIdentifier=none
authorityKeyIdentifier=none
"""

MINIMAL_INTER = """[inter]
basicConstraints=critical,CA:TRUE
subjectKeyIdentifier=none
authorityKeyIdentifier=none
"""

MINIMAL_LEAF = """[leaf]
subjectAltName=DNS:%s
subjectKeyIdentifier=none
authorityKeyIdentifier=none
""" % HOST


@case("openssl-minimal-root-leaf", "openssl req -x509 + openssl x509 -req (minimal extfiles)",
      "root with only basicConstraints (no SKI/AKI/keyUsage), leaf with only subjectAltName (no AKI/SKI/EKU/KU)")
def _(c, d):
    openssl_root(d, config_args=["-config", write(d, "root.cnf", MINIMAL_ROOT)])
    openssl_sign(d, "leaf", "root", write(d, "leaf.cnf", MINIMAL_LEAF), "leaf")
    chain, root, k = read(d, "leaf.pem", "root.pem", "leaf.key")
    return [chain], [root], k


@case("openssl-minimal-intermediate", "openssl req -x509 + openssl x509 -req (minimal extfiles)",
      "minimal root -> intermediate with only basicConstraints -> leaf with only subjectAltName; no key identifiers")
def _(c, d):
    openssl_root(d, config_args=["-config", write(d, "root.cnf", MINIMAL_ROOT)])
    openssl_sign(d, "inter", "root", write(d, "inter.cnf", MINIMAL_INTER), "inter",
                 subj="/CN=OpenSSL Intermediate/O=netvigil differential")
    openssl_sign(d, "leaf", "inter", write(d, "leaf.cnf", MINIMAL_LEAF), "leaf")
    leaf, inter, root, k = read(d, "leaf.pem", "inter.pem", "root.pem", "leaf.key")
    return [leaf, inter], [root], k


@case("openssl-ec-p256", "openssl req -x509 + openssl x509 -req",
      "P-256 keys (`-newkey ec -pkeyopt ec_paramgen_curve:P-256`), Debian defaults, leaf usr_cert + SAN")
def _(c, d):
    openssl_root(d, newkey="ec", config_args=["-pkeyopt", "ec_paramgen_curve:P-256"])
    run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "leaf.key"], cwd=d)
    run(["openssl", "req", "-new", "-key", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=" + HOST], cwd=d)
    run(["openssl", "x509", "-req", "-in", "leaf.csr", "-CA", "root.pem", "-CAkey", "root.key", "-CAcreateserial",
         "-days", "365", "-out", "leaf.pem", "-extfile", write(d, "ext.cnf", USR_CERT_SAN), "-extensions",
         "usr_cert_san"], cwd=d)
    chain, root, k = read(d, "leaf.pem", "root.pem", "leaf.key")
    return [chain], [root], k


@case("openssl-self-signed-server", "openssl req -x509",
      "`openssl req -x509 -addext subjectAltName=DNS:HOST`: a self-signed server certificate (Debian v3_ca, so CA:TRUE) "
      "trusted as its own anchor")
def _(c, d):
    openssl_root(d, name="leaf", subj="/CN=" + HOST, config_args=["-addext", "subjectAltName=DNS:" + HOST])
    chain, k = read(d, "leaf.pem", "leaf.key")
    return [chain], [chain], k


# --- easy-rsa 3.1 ----------------------------------------------------------------------------------------------------

EASYRSA = "/usr/share/easy-rsa/easyrsa"


def easyrsa(d, pki, *arguments, extra_env=None):
    env = dict(os.environ)
    env.update({"EASYRSA_BATCH": "1", "EASYRSA_PKI": os.path.join(d, pki), "EASYRSA": "/usr/share/easy-rsa"})
    env.update(extra_env or {})
    return run([EASYRSA, *arguments], cwd=d, env=env)


def easyrsa_server(d, extra_env=None, san=None, name=HOST):
    easyrsa(d, "pki", "init-pki", extra_env=extra_env)
    easyrsa(d, "pki", "--req-cn=easy-rsa Root", "build-ca", "nopass", extra_env=extra_env)
    arguments = ["--subject-alt-name=" + san] if san else []
    easyrsa(d, "pki", *arguments, "build-server-full", name, "nopass", extra_env=extra_env)
    leaf, root, k = read(d, "pki/issued/%s.crt" % name, "pki/ca.crt", "pki/private/%s.key" % name)
    return [leaf], [root], k


@case("easyrsa-one-tier", "easy-rsa 3.1", "`easyrsa build-ca nopass` + `build-server-full HOST nopass`, all defaults")
def _(c, d):
    return easyrsa_server(d)


@case("easyrsa-ec", "easy-rsa 3.1", "as easyrsa-one-tier with EASYRSA_ALGO=ec (P-384 by default)")
def _(c, d):
    return easyrsa_server(d, extra_env={"EASYRSA_ALGO": "ec"})


@case("easyrsa-ip-san", "easy-rsa 3.1", "build-server-full with --subject-alt-name=IP:127.0.0.1", host="127.0.0.1")
def _(c, d):
    return easyrsa_server(d, san="IP:127.0.0.1", name="127.0.0.1")


@case("easyrsa-two-tier", "easy-rsa 3.1",
      "root PKI + sub-CA PKI (`build-ca subca`, `import-req`, `sign-req ca`), server from the sub-CA; easy-rsa's ca "
      "type has non-critical basicConstraints")
def _(c, d):
    easyrsa(d, "root", "init-pki")
    easyrsa(d, "root", "--req-cn=easy-rsa Root", "build-ca", "nopass")
    easyrsa(d, "sub", "init-pki")
    easyrsa(d, "sub", "--req-cn=easy-rsa Sub CA", "build-ca", "nopass", "subca")
    easyrsa(d, "root", "import-req", os.path.join(d, "sub/reqs/ca.req"), "sub")
    easyrsa(d, "root", "sign-req", "ca", "sub")
    shutil.copy(os.path.join(d, "root/issued/sub.crt"), os.path.join(d, "sub/ca.crt"))
    easyrsa(d, "sub", "build-server-full", HOST, "nopass")
    leaf, inter, root, k = read(d, "sub/issued/%s.crt" % HOST, "sub/ca.crt", "root/ca.crt",
                                "sub/private/%s.key" % HOST)
    return [leaf, inter], [root], k


# --- mkcert ------------------------------------------------------------------------------------------------------------

def mkcert(d, *names, ecdsa=False):
    env = dict(os.environ)
    env["CAROOT"] = os.path.join(d, "caroot")
    env["TRUST_STORES"] = "none"
    os.makedirs(env["CAROOT"], exist_ok=True)
    run(["mkcert", *(["-ecdsa"] if ecdsa else []), "-cert-file", "leaf.pem", "-key-file", "leaf.key", *names],
        cwd=d, env=env)
    leaf, root, k = read(d, "leaf.pem", "caroot/rootCA.pem", "leaf.key")
    return [leaf], [root], k


@case("mkcert-dns", "mkcert", "`mkcert HOST` with a fresh CAROOT (root has pathLen 0, leaf lives 2 years 3 months)")
def _(c, d):
    return mkcert(d, HOST)


@case("mkcert-ip", "mkcert", "`mkcert 127.0.0.1`", host="127.0.0.1")
def _(c, d):
    return mkcert(d, "127.0.0.1")


@case("mkcert-wildcard", "mkcert", "`mkcert '*.example.test'` checked for www.example.test")
def _(c, d):
    return mkcert(d, "*.example.test")


@case("mkcert-ecdsa", "mkcert", "`mkcert -ecdsa HOST`")
def _(c, d):
    return mkcert(d, HOST, ecdsa=True)


# --- cfssl -------------------------------------------------------------------------------------------------------------

CFSSL_CONFIG = {
    "signing": {
        "default": {"expiry": "8760h"},
        "profiles": {
            "www": {"expiry": "8760h", "usages": ["signing", "key encipherment", "server auth"]},
            "intermediate": {"expiry": "43800h", "usages": ["cert sign", "crl sign"],
                             "ca_constraint": {"is_ca": True, "max_path_len": 0, "max_path_len_zero": True}},
        },
    }
}


def cfssl_json(d, arguments, request):
    out = json.loads(run(["cfssl", *arguments], cwd=d, input=json.dumps(request)))
    return out["cert"], out.get("key")


def cfssl_ca(d, algo):
    root, root_key = cfssl_json(d, ["genkey", "-initca", "-"],
                                {"CN": "cfssl Root", "key": {"algo": algo, "size": 256 if algo == "ecdsa" else 2048},
                                 "names": [{"O": "netvigil differential"}]})
    write(d, "root.pem", root)
    write(d, "root.key", root_key)
    write(d, "config.json", json.dumps(CFSSL_CONFIG))
    return root


def cfssl_leaf(d, ca, hosts, algo):
    return cfssl_json(d, ["gencert", "-ca", ca + ".pem", "-ca-key", ca + ".key", "-config", "config.json",
                          "-profile", "www", "-"],
                      {"CN": hosts[0], "hosts": hosts, "key": {"algo": algo, "size": 256 if algo == "ecdsa" else 2048}})


@case("cfssl-root-leaf", "cfssl", "`cfssl genkey -initca` root (ECDSA P-256) + `cfssl gencert -profile www` leaf")
def _(c, d):
    root = cfssl_ca(d, "ecdsa")
    leaf, k = cfssl_leaf(d, "root", [HOST], "ecdsa")
    return [leaf], [root], k


@case("cfssl-rsa", "cfssl", "cfssl with RSA 2048 keys")
def _(c, d):
    root = cfssl_ca(d, "rsa")
    leaf, k = cfssl_leaf(d, "root", [HOST], "rsa")
    return [leaf], [root], k


@case("cfssl-intermediate", "cfssl",
      "cfssl root -> intermediate (`cfssl gencert -profile intermediate`, pathLen 0) -> leaf")
def _(c, d):
    root = cfssl_ca(d, "ecdsa")
    inter, inter_key = cfssl_json(d, ["gencert", "-ca", "root.pem", "-ca-key", "root.key", "-config", "config.json",
                                      "-profile", "intermediate", "-"],
                                  {"CN": "cfssl Intermediate", "key": {"algo": "ecdsa", "size": 256},
                                   "names": [{"O": "netvigil differential"}]})
    write(d, "inter.pem", inter)
    write(d, "inter.key", inter_key)
    leaf, k = cfssl_leaf(d, "inter", [HOST], "ecdsa")
    return [leaf, inter], [root], k


@case("cfssl-ip", "cfssl", "cfssl leaf for hosts [127.0.0.1]", host="127.0.0.1")
def _(c, d):
    root = cfssl_ca(d, "ecdsa")
    leaf, k = cfssl_leaf(d, "root", ["127.0.0.1"], "ecdsa")
    return [leaf], [root], k


# --- Go crypto/x509 ----------------------------------------------------------------------------------------------------

GO_BIN = [None]


def go_gen(d, host, kind, tiers):
    run([GO_BIN[0], d, host, kind, tiers])
    chain, anchors, k = read(d, "chain.pem", "anchors.pem", "leaf.key")
    return [chain], [anchors], k


@case("go-root-leaf", "go crypto/x509", "gen.go: P-256 root -> leaf (CreateCertificate fills SKI/AKI)")
def _(c, d):
    return go_gen(d, HOST, "p256", "2")


@case("go-intermediate", "go crypto/x509", "gen.go: P-256 root -> intermediate (pathLen 0) -> leaf")
def _(c, d):
    return go_gen(d, HOST, "p256", "3")


@case("go-rsa", "go crypto/x509", "gen.go: RSA 2048 root -> intermediate -> leaf")
def _(c, d):
    return go_gen(d, HOST, "rsa2048", "3")


@case("go-ip", "go crypto/x509", "gen.go: leaf for 127.0.0.1 (IP SAN)", host="127.0.0.1")
def _(c, d):
    return go_gen(d, "127.0.0.1", "p256", "2")


# ---------------------------------------------------------------------------------------------------------------------

def build_go(cache):
    """Builds gen.go once into CACHE (no network: GOPROXY=off, no module)."""
    binary = os.path.join(cache, "gen")
    if os.path.exists(binary) and os.path.getmtime(binary) >= os.path.getmtime(os.path.join(HERE, "gen.go")):
        return binary
    if shutil.which("go") is None:
        raise GenerationError("go is missing (apt-get install golang-go)")
    env = go_env(cache)
    run(["go", "build", "-o", binary, os.path.join(HERE, "gen.go")], cwd=cache, env=env)
    return binary


def go_env(cache):
    env = dict(os.environ)
    env.update({"GOPROXY": "off", "GO111MODULE": "off", "GOFLAGS": "", "CGO_ENABLED": "0"})
    env.setdefault("HOME", cache)
    if "GOCACHE" not in env and not os.path.isdir(os.path.join(env["HOME"], ".cache")):
        env["GOCACHE"] = os.path.join(cache, "gocache")
    return env


def generate(outdir, only=None, go_cache=None):
    os.makedirs(outdir, exist_ok=True)
    go_cache = go_cache or os.path.join(outdir, ".bin")
    os.makedirs(go_cache, exist_ok=True)
    names = []
    for c, function in CASES:
        if only and c.name not in only:
            continue
        if c.tool.startswith("go ") and GO_BIN[0] is None:
            GO_BIN[0] = build_go(go_cache)
        directory = os.path.join(outdir, c.name)
        if os.path.exists(directory):
            shutil.rmtree(directory)
        try:
            if function.__code__.co_argcount >= 2 and function.__code__.co_varnames[1] == "d":
                with tempfile.TemporaryDirectory(prefix="nv-gen-") as work:
                    chain, anchors, leaf_key = function(c, work)
            else:
                chain, anchors, leaf_key = function(c)
        except GenerationError as error:
            raise GenerationError("case %s: %s" % (c.name, error))
        write_case(directory, c, chain, anchors, leaf_key)
        names.append(c.name)
    if only:
        missing = set(only) - set(names)
        if missing:
            raise GenerationError("no such case: " + ", ".join(sorted(missing)))
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--only", action="append", help="make only this case (repeatable)")
    parser.add_argument("--go-bin", help="where the built gen.go is cached (default OUTDIR/.bin)")
    args = parser.parse_args()
    try:
        names = generate(args.outdir, args.only, args.go_bin)
    except GenerationError as error:
        print("generate.py: %s" % error, file=sys.stderr)
        return 1
    print("%d cases in %s" % (len(names), args.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
