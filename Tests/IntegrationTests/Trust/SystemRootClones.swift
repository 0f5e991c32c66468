import Foundation
import NetVigilTestSupport
@testable import NetVigilTrust

/// Every root of `/etc/ssl/certs/ca-certificates.crt` re-made with the same name, serial (1 for the few roots with
/// serial 0, which `cryptography` cannot write; anchors' serials are not judged), key type and size,
/// self-signature digest and extensions but a key of the test's own, each with an intermediate (none where the root's
/// pathLenConstraint is 0) and a leaf under it:
/// what a chain under that real root looks like to the verifier, without the root's private key.
struct SystemRootClone {
    let index: Int
    let subject: String
    let keyType: String
    let root: Certificate
    let chain: [Certificate]
    let host: String

    /// Makes one clone per root (python3 cryptography); keys are shared per key type to keep it fast.
    static func makeAll(bundle: String = "/etc/ssl/certs/ca-certificates.crt") throws -> [SystemRootClone] {
        let directory = NSTemporaryDirectory() + "netvigil-roots-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + ".py"
        try self.script.write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let manifest = try shell("/usr/bin/python3", [script, bundle, directory])
        var clones: [SystemRootClone] = []
        for line in String(decoding: manifest, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let index = Int(fields[0]) else { throw FixtureError(message: "bad manifest line \(line)") }
            func load(_ name: String) throws -> Certificate { try Certificate.load(contentsOf: directory + "/\(index)-\(name).pem")[0] }
            clones.append(SystemRootClone(index: index, subject: fields[1], keyType: fields[2], root: try load("root"),
                                          chain: fields[4] == "direct" ? [try load("leaf")] : [try load("leaf"), try load("inter")],
                                          host: fields[3]))
        }
        return clones
    }

    static let script = #"""
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtensionOID, NameOID

bundle, out = sys.argv[1], sys.argv[2]
import os; os.makedirs(out, exist_ok=True)
now = datetime.datetime.now(datetime.timezone.utc)
keys = {}
def key_like(public):
    if isinstance(public, rsa.RSAPublicKey):
        kind = "RSA %d" % public.key_size
        if kind not in keys: keys[kind] = rsa.generate_private_key(public_exponent=65537, key_size=public.key_size)
    elif isinstance(public, ec.EllipticCurvePublicKey):
        kind = "EC " + public.curve.name
        if kind not in keys: keys[kind] = ec.generate_private_key(type(public.curve)())
    else:
        raise SystemExit("unsupported root key " + type(public).__name__)
    return kind, keys[kind]

inter_key = ec.generate_private_key(ec.SECP256R1())
leaf_key = ec.generate_private_key(ec.SECP256R1())
def write(path, cert):
    from cryptography.hazmat.primitives import serialization
    open(path, "wb").write(cert.public_bytes(serialization.Encoding.PEM))

text = open(bundle, "rb").read()
marker = b"-----END CERTIFICATE-----"
blocks = [block + marker for block in text.split(marker) if b"-----BEGIN CERTIFICATE-----" in block]
for index, real in enumerate(x509.load_pem_x509_certificate(block) for block in blocks):
    kind, key = key_like(real.public_key())
    host = "www.example.com"
    b = (x509.CertificateBuilder().subject_name(real.subject).issuer_name(real.subject).public_key(key.public_key())
         .serial_number(max(real.serial_number, 1)).not_valid_before(now - datetime.timedelta(days=1))
         .not_valid_after(now + datetime.timedelta(days=365)))
    for ext in real.extensions:
        if ext.oid == ExtensionOID.SUBJECT_KEY_IDENTIFIER:
            b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), ext.critical)
        elif ext.oid == ExtensionOID.AUTHORITY_KEY_IDENTIFIER:
            b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), ext.critical)
        else:
            if ext.oid == ExtensionOID.NAME_CONSTRAINTS and ext.value.permitted_subtrees:
                dns = [n.value.lstrip(".") for n in ext.value.permitted_subtrees if isinstance(n, x509.DNSName)]
                if dns: host = "www." + dns[0]
            b = b.add_extension(ext.value, ext.critical)
    root = b.sign(key, real.signature_hash_algorithm)
    digest = hashes.SHA384() if kind == "EC secp384r1" else hashes.SHA256()
    inter = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Clone Intermediate %d" % index)]))
             .issuer_name(root.subject).public_key(inter_key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=300))
             .add_extension(x509.BasicConstraints(ca=True, path_length=0), True)
             .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), True)
             .add_extension(x509.SubjectKeyIdentifier.from_public_key(inter_key.public_key()), False)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), False)
             .sign(key, digest))
    # A root whose pathLenConstraint is 0 (an egress-inspection CA, say) may issue no intermediate: its leaf is direct.
    limits = [e.value.path_length for e in real.extensions if e.oid == ExtensionOID.BASIC_CONSTRAINTS]
    direct = bool(limits) and limits[0] == 0
    issuer, issuer_key = (root, key) if direct else (inter, inter_key)
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
            .issuer_name(issuer.subject).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=90))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(leaf_key.public_key()), False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False)
            .sign(issuer_key, hashes.SHA256()))
    for name, cert in (("root", root), ("inter", inter), ("leaf", leaf)):
        write("%s/%d-%s.pem" % (out, index, name), cert)
    print("%d\t%s\t%s\t%s\t%s" % (index, real.subject.rfc4514_string().replace("\t", " "), kind, host, "direct" if direct else ""))
"""#
}
