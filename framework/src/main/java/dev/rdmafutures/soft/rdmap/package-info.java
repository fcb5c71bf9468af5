/** RDMAP (RFC 5040): opcodes, Read Request payloads, and Terminate messages with their error codes. */
package dev.rdmafutures.soft.rdmap;
