package datasets

import "fmt"

func readMapped(format, name string, data []byte, opts LogOptions) (*ScoreLog, error) {
	return nil, fmt.Errorf("%s: format %s: not yet", name, format)
}
