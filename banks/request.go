package banks

// Message is one chat message of a rendered request.
type Message struct {
	Role    string `json:"role"` // "system" or "user"
	Content string `json:"content"`
}

// Scale is the score scale a task prompt asks for.
type Scale struct {
	Min     int           `json:"min" toml:"min"`
	Max     int           `json:"max" toml:"max"`
	Anchors []ScaleAnchor `json:"anchors,omitempty" toml:"anchors"`
}

// ScaleAnchor labels a range of the scale ("1–2 = very poor").
type ScaleAnchor struct {
	From  int    `json:"from" toml:"from"`
	To    int    `json:"to" toml:"to"`
	Label string `json:"label" toml:"label"`
}

// Request is one fully rendered judge request: everything a backend needs
// to score one candidate under one probe condition.
type Request struct {
	BankHash    string // content hash of the bank wording that produced it
	Probe       string // "baseline", "ATTR:+", "ATTR:-", "neutral:NAME", "ctx:NAME"
	Wording     int    // index of the wording within its sign (0 for baseline)
	Instruction string // the added system instruction ("" for baseline)
	ContextID   string
	CandidateID string
	Messages    []Message // system then user
	Scale       Scale

	// The texts the request was rendered from, kept so that a judge that
	// reads features (the offline judge) need not parse the messages back.
	Source        string
	CandidateText string

	// Batched pointwise scoring (paper §B.6): the candidates shown in this
	// one call, in presentation order. Empty for a single-candidate request.
	BatchIDs   []string
	BatchTexts []string
	// BatchLabels are the labels the judge sees for the batched candidates
	// ("1", "2", …), in presentation order; the JSON answer is keyed by
	// them ({"scores": {"1": 7, …}}), never by candidate ids, which can
	// give away a candidate's origin (e.g. "Original Ground Truth").
	BatchLabels []string

	// Rubric is set on a rubric request (SAJA or G-Eval, docs/rubrics.md)
	// and nil on a bank's: it says which criteria the reply rates and on
	// which scales. BankHash then holds the rubric's hash and Scale, for a
	// SAJA request, spans every criterion's scale.
	Rubric *RubricCall
}
