package clouddouble

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// sigv4 computes AWS Signature Version 4 as the STS service checks it. It is written
// from the published algorithm, not from the SDK the provider signs with, so that the
// double checks the SDK rather than agreeing with it.
type sigv4 struct {
	secret, date, region, service string
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func sha256Hex(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

// encode is SigV4's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ as %XY.
func encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// canonicalQuery sorts the parameters (all but skip) by encoded name, then value.
func canonicalQuery(q url.Values, skip string) string {
	var pairs []string
	for k, vs := range q {
		if k == skip {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, encode(k)+"="+encode(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// canonicalRequest is the request as SigV4 signs it: the signed headers' values are
// read from r (host from r.Host).
func canonicalRequest(r *http.Request, query string, signedHeaders []string, payloadHash string) string {
	var headers strings.Builder
	for _, h := range signedHeaders {
		v := r.Header.Values(h)
		if h == "host" {
			v = []string{r.Host}
		}
		trimmed := make([]string, len(v))
		for i, x := range v {
			trimmed[i] = strings.Join(strings.Fields(x), " ")
		}
		headers.WriteString(h + ":" + strings.Join(trimmed, ",") + "\n")
	}
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	return strings.Join([]string{r.Method, path, query, headers.String(), strings.Join(signedHeaders, ";"), payloadHash}, "\n")
}

// signature is the hex signature of a canonical request made at amzDate.
func (s sigv4) signature(amzDate, canonical string) string {
	scope := strings.Join([]string{s.date, s.region, s.service, "aws4_request"}, "/")
	toSign := strings.Join([]string{"AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonical)}, "\n")
	key := hmacSHA256([]byte("AWS4"+s.secret), s.date)
	key = hmacSHA256(key, s.region)
	key = hmacSHA256(key, s.service)
	key = hmacSHA256(key, "aws4_request")
	return hex.EncodeToString(hmacSHA256(key, toSign))
}
