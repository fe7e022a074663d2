package model

// Version is prism's release, recorded in every calibrator file it writes
// (prism version prints it).
const Version = "0.15.0"
