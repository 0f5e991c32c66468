import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// Chains for the `webpki` profile tests, made at test time by python3 `cryptography` from JSON specifications.
///
/// A specification is a list of certificates, issuers first: `name`, `issuer` (absent: self-signed), `key`
/// (`ec256`, `ec384`, `ec224`, `ec192`, `rsaBITS`, `dsaBITS`, `ed25519`), `ca`, `bc`/`bc_critical`, `pathlen`, `ku`,
/// `eku` (`serverAuth`, `clientAuth`, `any`), `dns`, `ip`, `cn`, `permitted`/`excluded` (`dns:`, `ip:`, `dn:`),
/// `hash` (`sha256`, `sha1`, `md5`), `ski`, `aki`, `v1`, `openssl_serial` (a leaf made by the openssl CLI with that
/// serial), `raw` extensions and `patch` (hex replacements in the to-be-signed bytes, re-signed by the issuer).
enum WebPKIFixtures {
    /// Runs the generator for `certificates` and loads every certificate by name.
    static func make(_ certificates: [[String: Any]]) throws -> [String: Certificate] {
        let directory = NSTemporaryDirectory() + "netvigil-webpki-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let request = try JSONSerialization.data(withJSONObject: ["out": directory, "certs": certificates])
        try shell("/usr/bin/python3", [try scriptPath()], stdin: request)
        var result: [String: Certificate] = [:]
        for specification in certificates {
            guard let name = specification["name"] as? String else { continue }
            result[name] = try Certificate.load(contentsOf: directory + "/\(name).pem")[0]
        }
        return result
    }

    /// The generator written once per process.
    static func scriptPath() throws -> String {
        let path = NSTemporaryDirectory() + "netvigil-webpki-gen-\(getpid()).py"
        if !FileManager.default.fileExists(atPath: path) {
            try script.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return path
    }

    static let script = #"""
import datetime, ipaddress, json, os, subprocess, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

NOW = datetime.datetime.now(datetime.timezone.utc)
CURVES = {"ec256": ec.SECP256R1, "ec384": ec.SECP384R1, "ec521": ec.SECP521R1, "ec224": ec.SECP224R1, "ec192": ec.SECP192R1}
_keys = {}

def new_key(kind, cache=None):
    cache = cache or kind
    if cache in _keys: return _keys[cache]
    if kind in CURVES: key = ec.generate_private_key(CURVES[kind]())
    elif kind.startswith("rsa"): key = rsa.generate_private_key(public_exponent=65537, key_size=int(kind[3:]))
    elif kind.startswith("dsa"): key = dsa.generate_private_key(key_size=int(kind[3:]))
    elif kind == "ed25519": key = ed25519.Ed25519PrivateKey.generate()
    elif kind == "ed448": key = ed448.Ed448PrivateKey.generate()
    else: raise SystemExit("unknown key " + kind)
    _keys[cache] = key
    return key

def hash_for(name):
    return None if name == "none" else {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha1": hashes.SHA1(), "md5": hashes.MD5()}[name]

def sign_bytes(key, data, hash_name):
    if isinstance(key, ec.EllipticCurvePrivateKey): return key.sign(data, ec.ECDSA(hash_for(hash_name)))
    if isinstance(key, rsa.RSAPrivateKey): return key.sign(data, padding.PKCS1v15(), hash_for(hash_name))
    if isinstance(key, dsa.DSAPrivateKey): return key.sign(data, hash_for(hash_name))
    return key.sign(data)

def tlv(data, offset):
    tag = data[offset]; length = data[offset + 1]; header = 2
    if length & 0x80:
        count = length & 0x7F; length = int.from_bytes(data[offset + 2:offset + 2 + count], "big"); header += count
    return header, length

def der(tag, body):
    n = len(body)
    if n < 0x80: return bytes([tag, n]) + body
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(raw)]) + raw + body

def general_name(text):
    kind, _, value = text.partition(":")
    if kind == "dns": return x509.DNSName(value)
    if kind == "ip": return x509.IPAddress(ipaddress.ip_network(value) if "/" in value else ipaddress.ip_address(value))
    if kind == "dn": return x509.DirectoryName(x509.Name.from_rfc4514_string(value))
    raise SystemExit("bad name " + text)

KU = ["digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
      "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"]
EKU = {"serverAuth": ExtendedKeyUsageOID.SERVER_AUTH, "clientAuth": ExtendedKeyUsageOID.CLIENT_AUTH,
       "any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE}

def build(spec, made, out):
    name = spec["name"]
    key = new_key(spec.get("key", "ec256"), cache=name)
    issuer = made[spec["issuer"]] if spec.get("issuer") else None
    issuer_key = issuer[1] if issuer else key
    issuer_name = issuer[0].subject if issuer else None
    is_ca = spec.get("ca", False)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, spec.get("cn", name))])
    default_hash = "sha384" if spec.get("issuer_key_kind", "") == "ec384" else "sha256"
    hash_name = spec.get("hash", default_hash)
    if isinstance(issuer_key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)): hash_name = "none"
    if spec.get("v1") or "openssl_serial" in spec:
        # openssl CLI: x509 -req without extensions makes a version 1 certificate; with them it writes any serial
        # (zero, over 20 octets), which cryptography refuses.
        kp = os.path.join(out, name + ".key"); csr = os.path.join(out, name + ".csr")
        open(kp, "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        subprocess.run(["openssl", "req", "-new", "-key", kp, "-subj", "/CN=" + spec.get("cn", name), "-out", csr], check=True, capture_output=True)
        ik = os.path.join(out, spec["issuer"] + ".key"); ic = os.path.join(out, spec["issuer"] + ".pem")
        extra = []
        if not spec.get("v1"):
            ext = os.path.join(out, name + ".ext")
            open(ext, "w").write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                                 "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
                                 "subjectAltName=" + ",".join("DNS:" + d for d in spec.get("dns", [name + ".example.com"])) + "\n")
            extra = ["-extfile", ext]
        subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ic, "-CAkey", ik, "-set_serial", spec.get("openssl_serial", "4242"),
                        "-days", "30", "-sha256", "-out", os.path.join(out, name + ".pem")] + extra, check=True, capture_output=True)
        cert = x509.load_pem_x509_certificate(open(os.path.join(out, name + ".pem"), "rb").read())
        made[name] = (cert, key); return
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name or subject).public_key(key.public_key())
         .serial_number(spec.get("serial", x509.random_serial_number()))
         .not_valid_before(NOW - datetime.timedelta(days=1))
         .not_valid_after(NOW + datetime.timedelta(days=spec.get("days", 90))))
    if spec.get("bc", True):
        b = b.add_extension(x509.BasicConstraints(ca=is_ca, path_length=spec.get("pathlen")), critical=spec.get("bc_critical", True))
    ku = spec.get("ku", ["key_cert_sign", "crl_sign"] if is_ca else ["digital_signature"])
    if ku is not None:
        b = b.add_extension(x509.KeyUsage(**{k: k in ku for k in KU}), critical=True)
    eku = spec.get("eku", None if is_ca else ["serverAuth"])
    if eku is not None:
        b = b.add_extension(x509.ExtendedKeyUsage([EKU[e] for e in eku]), critical=False)
    sans = [x509.DNSName(d) for d in spec.get("dns", [] if is_ca else [name + ".example.com"])]
    sans += [x509.IPAddress(ipaddress.ip_address(a)) for a in spec.get("ip", [])]
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    if "permitted" in spec or "excluded" in spec:
        b = b.add_extension(x509.NameConstraints(
            permitted_subtrees=[general_name(n) for n in spec.get("permitted", [])] or None,
            excluded_subtrees=[general_name(n) for n in spec.get("excluded", [])] or None), critical=True)
    if spec.get("ski", True):
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if spec.get("aki", True):
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    for raw in spec.get("raw", []):
        b = b.add_extension(x509.UnrecognizedExtension(ObjectIdentifier(raw["oid"]), bytes.fromhex(raw["hex"])), critical=raw.get("critical", False))
    cert = b.sign(issuer_key, hash_for(hash_name))
    patches = spec.get("patch", [])
    if patches:
        tbs = cert.tbs_certificate_bytes
        for old, new in patches:
            assert bytes.fromhex(old) in tbs, "patch not found"
            tbs = tbs.replace(bytes.fromhex(old), bytes.fromhex(new))
        whole = cert.public_bytes(serialization.Encoding.DER)
        h, _ = tlv(whole, 0); o = h
        th, tl = tlv(whole, o); o += th + tl
        ah, al = tlv(whole, o); alg = whole[o:o + ah + al]
        body = tbs + alg + der(0x03, b"\x00" + sign_bytes(issuer_key, tbs, hash_name))
        cert = x509.load_der_x509_certificate(der(0x30, body))
    open(os.path.join(out, name + ".pem"), "wb").write(cert.public_bytes(serialization.Encoding.PEM))
    open(os.path.join(out, name + ".key"), "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    made[name] = (cert, key)

def main():
    request = json.load(sys.stdin)
    out = request["out"]; os.makedirs(out, exist_ok=True)
    made = {}
    for spec in request["certs"]:
        if spec.get("issuer"):
            spec.setdefault("issuer_key_kind", next(s.get("key", "ec256") for s in request["certs"] if s["name"] == spec["issuer"]))
        build(spec, made, out)

main()
"""#
}
