// Package signature signs RocketMQ remoting requests for clusters with ACL on,
// exactly as RocketMQ's AclClientRPCHook does: 4.x plain ACL and 5.x ACL 2.0
// brokers verify the same signature. It is its own package so that dev/, which
// the rocketmq package's tests import, can sign its few start-up requests with
// the same code.
package signature

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"sort"
)

// Ext fields of a signed request (RocketMQ's SessionCredentials).
const (
	AccessKey = "AccessKey"
	Signature = "Signature"
	// UniqueKeyQuery is QUERY_MESSAGE's unique-key flag. 4.9.7 brokers leave it
	// out of the content they verify; 5.x brokers do too, but only when the
	// request's version is at most UnsignedUniqueKeyVersion. A request that
	// carries it is therefore sent with that version and signed without it,
	// which every broker accepts.
	UniqueKeyQuery           = "_UNIQUE_KEY_QUERY"
	UnsignedUniqueKeyVersion = 399 // V4_9_3
)

// Sign returns ext with AccessKey and Signature added: base64(HMAC-SHA1(secret,
// the values of every ext field but Signature and UniqueKeyQuery, in key order,
// concatenated, then the body)). NameServers ignore the fields; brokers with ACL
// on verify them. ext itself is not changed.
func Sign(ext map[string]string, body []byte, accessKey, secretKey string) map[string]string {
	signed := make(map[string]string, len(ext)+2)
	for k, v := range ext {
		signed[k] = v
	}
	signed[AccessKey] = accessKey
	delete(signed, Signature)
	keys := make([]string, 0, len(signed))
	for k := range signed {
		if k != UniqueKeyQuery {
			keys = append(keys, k)
		}
	}
	// Java's TreeMap orders String keys by UTF-16 code unit, which is byte order
	// for the ASCII names RocketMQ uses.
	sort.Strings(keys)
	mac := hmac.New(sha1.New, []byte(secretKey))
	for _, k := range keys {
		mac.Write([]byte(signed[k]))
	}
	mac.Write(body)
	signed[Signature] = base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return signed
}
