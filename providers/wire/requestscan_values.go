package wire

// ScannedValues returns, for a request ScanRequest read without decoding
// its history (Scanned), the body it read and the indexes in it of the
// messages and system values (-1 when absent): a converter that writes
// the upstream's body from the client's bytes reads them there, each
// checked as ParseRequest checks it. ok is false once Complete has run or
// for a request ParseRequest decoded.
func (r *Request) ScannedValues() (body []byte, messages, system int, ok bool) {
	if r.scan == nil {
		return nil, -1, -1, false
	}
	return r.scan.body, r.scan.messages, r.scan.system, true
}
