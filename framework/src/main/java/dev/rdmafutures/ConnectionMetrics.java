package dev.rdmafutures;

/**
 * One connection's counters at one moment ({@link RdmaConnection#metrics()}): its operations, and how many slots of
 * its initiator and receive queues are taken (NDK's queue occupancy).
 *
 * @param operations        the connection's operations
 * @param initiatorSlotsUsed initiator-queue slots taken by operations not yet reported
 * @param receiveSlotsUsed   receive-queue slots taken by receives not yet reported
 */
public record ConnectionMetrics(OperationMetrics operations, int initiatorSlotsUsed, int receiveSlotsUsed) {
}
