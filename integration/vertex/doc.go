// Package vertex holds the vertex provider's integration tests: a real Caddy
// in front of a mock Vertex AI that checks each request's path, body and
// access token, with the token issued by a test OAuth endpoint through the
// real service-account flow. It has no code of its own; the tests are in
// package vertex_test.
package vertex
