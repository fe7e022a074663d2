// Package data holds the commands that put datasets, banks and scores in
// the workspace and list what it holds: prism data (import, ls, rm),
// import scores (tidy CSV and published judge logs), ls and bank (ls,
// show, validate, export).
package data
