// Package banks owns prism's probe banks and prompt rendering: the built-in
// banks from the PRISM paper (and those written for prism), the TOML bank
// file format with its validation, the content hash that identifies a
// bank's exact wording, the list of probe conditions a bank defines, and
// the exact chat messages a judge receives for a candidate under each
// condition (paper Table 1).
package banks
