// Package synthstudy makes deterministic synthetic studies of any size for
// benchmarks and scale tests (docs/performance.md): a news-summary dataset
// whose texts vary enough for the offline judge to score them apart, and
// judge score rows with human labels in prism's CSV shape. Nothing here is
// data about any real judge or benchmark.
package synthstudy
