/**
 * MPA (RFC 5044, updated by RFC 6581): connection setup messages with private data and IRD/ORD, and FPDU framing
 * (length, pad, CRC32c) of the byte stream once established.
 */
package dev.rdmafutures.soft.mpa;
