// Package effort runs output_config (effort, structured output) and
// thinking.display through a real Caddy, the official SDK as the client,
// in front of a test upstream speaking each translated provider's format,
// and asserts the exact upstream body and the client's answer.
package effort
