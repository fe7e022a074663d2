// Package score holds prism score: applying a saved calibrator (prism fit
// --save) to new candidates, from CSV files or by acquiring the
// calibrator's conditions on a workspace dataset (with --budget, the
// adaptive policy's calls only), and writing corrected scores, ranks and
// the transfer check.
package score
