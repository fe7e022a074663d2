// Package data is the Data tab: the open dataset's contexts on the left,
// the selected context's candidates, the chosen candidate's text and its
// source on the right. It owns the dialogs that change the dataset (the
// import dialog, the chooser of the workspace's datasets) and the path
// input of L, which loads a calibrator; the App keeps the study and the
// calibrator and applies what the tab asks for through its Services and
// messages (tab.DatasetMsg, tab.InspectMsg, tab.QuitMsg).
package data
