// verify.go: Go's crypto/x509 verdict on a served chain, the way a Go TLS client checks a server.
//
//	verify CHAIN.pem ANCHORS.pem HOST [RFC3339]
//
// Prints "accept" (exit 0) or "refuse: REASON" (exit 1); 2 on bad input.
package main

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
	"time"
)

func load(path string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no certificate", path)
	}
	return certs, nil
}

func refuse(format string, args ...any) {
	fmt.Println("refuse: " + strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	os.Exit(1)
}

func main() {
	if len(os.Args) < 4 || len(os.Args) > 5 {
		fmt.Fprintln(os.Stderr, "usage: verify CHAIN ANCHORS HOST [RFC3339]")
		os.Exit(2)
	}
	chain, err := load(os.Args[1])
	if err != nil {
		refuse("parse chain: %v", err)
	}
	anchors, err := load(os.Args[2])
	if err != nil {
		refuse("parse anchors: %v", err)
	}
	options := x509.VerifyOptions{
		DNSName:       os.Args[3],
		Roots:         x509.NewCertPool(),
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if len(os.Args) == 5 {
		at, err := time.Parse(time.RFC3339, os.Args[4])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		options.CurrentTime = at
	}
	for _, c := range anchors {
		options.Roots.AddCert(c)
	}
	for _, c := range chain[1:] {
		options.Intermediates.AddCert(c)
	}
	if _, err := chain[0].Verify(options); err != nil {
		refuse("%v", err)
	}
	fmt.Println("accept")
}
