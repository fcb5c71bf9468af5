/**
 * The {@code soft} provider: a pure-Java iWARP endpoint (MPA/DDP/RDMAP over TCP, RFC 5044/6581/5041/5040) driven by
 * the poller through non-blocking NIO, with no thread per connection. It interoperates with Linux siw and iWARP
 * NICs and is the default provider on machines without RDMA hardware.
 *
 * <p>A connection ({@code SoftConnection}) runs over an {@code MpaTransport}; its MPA exchange is an
 * {@code ActiveHandshake} or a {@code PassiveHandshake}, and once it is established its {@code SoftQueuePair}
 * combines a {@code SendScheduler}, an {@code FpduDecoder}, {@code Placement} and a {@code ReadResponder}; its
 * receives come from its own queue or from a {@code SoftSharedReceiveQueue} shared with other connections. Operations
 * gather and scatter up to 64 segments without copying them. The device's {@code RegionTable} holds the STags of
 * regions and of memory windows ({@code SoftWindow}) by their 24-bit index; a window takes the next 8-bit key with
 * every bind and answers only on the connection it was bound on. Wire formats live in {@code mpa}, {@code ddp} and
 * {@code rdmap}.
 *
 * <p>Options ({@code RdmaRuntime.Builder#providerOption}): {@code soft.crc} = {@code true} (default) to ask for
 * MPA CRC32c, {@code false} to leave it to the peer.
 */
package dev.rdmafutures.soft;
