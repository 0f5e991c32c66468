// gen.go: a two- or three-tier chain made the way a Go program makes one, with the standard library only
// (x509.CreateCertificate fills in SubjectKeyId for CAs and AuthorityKeyId from the parent).
//
//	go run gen.go OUTDIR HOST KEY(p256|rsa2048|ed25519) TIERS(2|3)
//
// Writes chain.pem (leaf first), anchors.pem and leaf.key (PKCS #8) into OUTDIR.
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

func newKey(kind string) crypto.Signer {
	var key crypto.Signer
	var err error
	switch kind {
	case "rsa2048":
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ed25519":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	check(err)
	return key
}

func check(err error) {
	if err != nil {
		os.Stderr.WriteString("gen.go: " + err.Error() + "\n")
		os.Exit(1)
	}
}

var serial int64 = 1000

func create(template, parent *x509.Certificate, key crypto.Signer, parentKey crypto.Signer) *x509.Certificate {
	serial++
	template.SerialNumber = big.NewInt(serial)
	if parent == nil {
		parent = template
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, key.Public(), parentKey)
	check(err)
	cert, err := x509.ParseCertificate(der)
	check(err)
	return cert
}

func pemOf(certs ...*x509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return out
}

func main() {
	if len(os.Args) != 5 {
		os.Stderr.WriteString("usage: gen OUTDIR HOST KEY TIERS\n")
		os.Exit(64)
	}
	out, host, kind, tiers := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	now := time.Now().Add(-time.Hour)
	rootKey := newKey(kind)
	root := create(&x509.Certificate{
		Subject:   pkix.Name{CommonName: "Go Root", Organization: []string{"netvigil differential"}},
		NotBefore: now, NotAfter: now.AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}, nil, rootKey, rootKey)
	issuer, issuerKey := root, rootKey
	var intermediates []*x509.Certificate
	if tiers == "3" {
		interKey := newKey(kind)
		inter := create(&x509.Certificate{
			Subject:   pkix.Name{CommonName: "Go Intermediate", Organization: []string{"netvigil differential"}},
			NotBefore: now, NotAfter: now.AddDate(5, 0, 0),
			IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		}, root, interKey, rootKey)
		intermediates = append(intermediates, inter)
		issuer, issuerKey = inter, interKey
	}
	leafKey := newKey(kind)
	template := &x509.Certificate{
		Subject:   pkix.Name{CommonName: host},
		NotBefore: now, NotAfter: now.AddDate(0, 0, 90),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if kind == "rsa2048" {
		template.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	if ip := net.ParseIP(host); ip != nil {
		template.IPAddresses = []net.IP{ip}
	} else {
		template.DNSNames = []string{host}
	}
	leaf := create(template, issuer, leafKey, issuerKey)
	keyDER, err := x509.MarshalPKCS8PrivateKey(leafKey)
	check(err)
	check(os.WriteFile(filepath.Join(out, "chain.pem"), pemOf(append([]*x509.Certificate{leaf}, intermediates...)...), 0o644))
	check(os.WriteFile(filepath.Join(out, "anchors.pem"), pemOf(root), 0o644))
	check(os.WriteFile(filepath.Join(out, "leaf.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
}
