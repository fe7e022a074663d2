package openai

import "net/http"

// do is s.http.Do(req) without http.Client's per-call work when it
// would return the first reply as it is: its header copy for redirects
// (made before sending, used only when following one) was 4% of the
// send path's CPU at C = 128 (docs/performance.md, "The request body by
// hand, and the client layer").
//
// http.Client.Do (net/http's client.go) returns the first reply
// unchanged, and does nothing else a caller can see, when: it has no
// cookie jar and no timeout; the request has a URL, no RequestURI, a
// header, and no user in its URL (which would add an Authorization
// header); its transport returned a reply with a body and no error; and
// the status is not one it redirects on (301, 302, 303, 307, 308). Then
// do returns that reply. In every other case (an error, a redirect, a
// reply without a body) the transport's answer is handed to an
// http.Client that gets it from its first RoundTrip instead of sending
// the request again: whatever http.Client does with it — wrapping the
// error in a *url.Error, following the redirect through the transport —
// it does (TestSenderDoIsClientDo).
func (s *sender) do(req *http.Request) (*http.Response, error) {
	c := s.http
	if c.Jar != nil || c.Timeout != 0 || c.Transport == nil || c.CheckRedirect != nil ||
		req.URL == nil || req.RequestURI != "" || req.Header == nil || req.URL.User != nil {
		return c.Do(req)
	}
	res, err := c.Transport.RoundTrip(req)
	if err == nil && res != nil && res.Body != nil && !redirectStatus(res.StatusCode) {
		return res, nil
	}
	r := &http.Client{Transport: &replayFirst{res: res, err: err, rt: c.Transport}}
	return r.Do(req)
}

// redirectStatus reports the statuses http.Client may follow.
func redirectStatus(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// replayFirst answers its first RoundTrip with a reply already received
// for that request, and sends the later ones (redirects) through rt.
type replayFirst struct {
	res  *http.Response
	err  error
	rt   http.RoundTripper
	done bool
}

func (t *replayFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.done {
		t.done = true
		return t.res, t.err
	}
	return t.rt.RoundTrip(req)
}
