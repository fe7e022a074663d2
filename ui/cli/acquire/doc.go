// Package acquire holds the commands that acquire judge answers through
// the engine: prism run (a study, resumable), screen (the signal screen on
// a context sample), diagnose (order, wording, joint, resolution), batch
// (provider batch files and APIs) and judge try. They share the study
// flags (studyFlags: dataset × bank × judge, rate limits, --repeats) and
// print estimates and progress through internal/clikit.
package acquire
