/** DDP (RFC 5041) segment headers and RDMAP (RFC 5040) control bits that ride in them. */
package dev.rdmafutures.soft.ddp;
