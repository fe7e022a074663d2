// Package redact owns what a credential looks like and how it is removed
// before anything reaches the workspace: registered secrets wherever
// they occur (Exact), credential-shaped values in replies and error
// messages (Reply, Text), and credential fields of judge parameters, base
// URLs (Params, URL) and imported datasets (Dataset). The store calls it
// on every path that writes.
package redact
