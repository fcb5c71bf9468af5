package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.soft.mpa.FpduFraming;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * The outbound queue frames small FPDUs back to back, packs runs of small buffers into one, and keeps the stream
 * exact across partial writes.
 */
class OutboundQueueTest {
    /** A Read Request's ULPDU: DDP untagged header (18 bytes) and RDMAP Read Request fields (28). */
    private static final int READ_REQUEST_ULPDU = 46;
    private final DirectBuffers buffers = new DirectBuffers();
    private final OutboundQueue queue = new OutboundQueue(buffers);
    private final ByteArrayOutputStream expected = new ByteArrayOutputStream();

    @Test
    void aBurstOfSmallBuffersLeavesAsOneBuffer() throws Exception {
        for (int i = 0; i < 16; i++) {
            queueScratch(30, i);
        }
        Socket socket = new Socket(Integer.MAX_VALUE);

        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.buffersPerWrite).containsExactly(1);
        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.flushedBytes()).isEqualTo(16 * 30);
    }

    @Test
    void smallRunsAroundALargeViewAreEachOneBufferAndTheViewIsNotCopied() throws Exception {
        SoftRegion region = region(4096);
        queueScratch(20, 1);
        queueScratch(20, 2);
        queueView(region, 100, 1000);
        queueScratch(8, 3);
        queueScratch(40, 4);
        Socket socket = new Socket(Integer.MAX_VALUE);

        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.buffersPerWrite).containsExactly(3);
        assertThat(socket.directViewsTaken).isEqualTo(1);
        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void partialWritesContinueExactlyWhereTheSocketStopped() throws Exception {
        SoftRegion region = region(8192);
        for (int i = 0; i < 40; i++) {
            if (i % 7 == 3) {
                queueView(region, i * 100, 300 + i);
            } else {
                queueScratch(1 + i % 60, i);
            }
        }
        Socket socket = new Socket(37);
        long writes = 0;
        while (!queue.writeTo(socket)) {
            assertThat(queue.flushedBytes()).isEqualTo(socket.taken.size());
            socket.room = 37;
            writes++;
        }
        assertThat(writes).isGreaterThan(10);
        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.flushedBytes()).isEqualTo(queue.enqueuedBytes());
    }

    @Test
    void droppingUnsentBytesKeepsOnlyThePartlyWrittenMessage() throws Exception {
        queueMessage(30, 1);
        queueMessage(30, 2);
        queueMessage(30, 3);
        Socket socket = new Socket(45); // all of the first, half of the second

        assertThat(queue.writeTo(socket)).isFalse();
        queue.dropUnsent();
        socket.room = Integer.MAX_VALUE;
        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.taken.size()).isEqualTo(60);
        byte[] firstTwo = new byte[60];
        System.arraycopy(expected.toByteArray(), 0, firstTwo, 0, 60);
        assertThat(socket.taken.toByteArray()).isEqualTo(firstTwo);
        assertThat(queue.enqueuedBytes()).isEqualTo(60);
    }

    @Test
    void smallFpdusAreFramedIntoOneBufferThatLeavesWithoutACopy() throws Exception {
        for (int i = 0; i < 16; i++) {
            queueFrame(READ_REQUEST_ULPDU, i);
        }
        Socket socket = new Socket(Integer.MAX_VALUE);

        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.buffersPerWrite).containsExactly(1);
        assertThat(socket.directViewsTaken).as("16 FPDUs of 52 bytes went as the frame buffer itself").isEqualTo(1);
        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.flushedBytes()).isEqualTo(16 * FpduFraming.fpduLength(READ_REQUEST_ULPDU))
                .isEqualTo(queue.enqueuedBytes());
    }

    @Test
    void framesThatOutgrowAFrameBufferGoOnInTheNextOneExactly() throws Exception {
        for (int i = 0; i < 200; i++) { // 10,400 bytes: three frame buffers
            queueFrame(READ_REQUEST_ULPDU, i);
        }
        Socket socket = new Socket(777);
        while (!queue.writeTo(socket)) {
            socket.room = 777;
        }

        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.flushedBytes()).isEqualTo(queue.enqueuedBytes()).isEqualTo(200 * 52);
    }

    @Test
    void aFrameBufferTheSocketTookNothingOfStaysOpen() throws Exception {
        queueFrame(READ_REQUEST_ULPDU, 1);
        queueFrame(READ_REQUEST_ULPDU, 2);
        Socket socket = new Socket(0);
        assertThat(queue.writeTo(socket)).isFalse();

        for (int i = 3; i < 16; i++) {
            queueFrame(READ_REQUEST_ULPDU, i);
        }
        socket.room = Integer.MAX_VALUE;
        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.buffersPerWrite).as("the refused write, then all 16 FPDUs as one buffer").containsExactly(1, 1);
        assertThat(socket.directViewsTaken).isEqualTo(1);
        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void aFrameTheCallerNeverCommittedIsForgotten() throws Exception {
        queueFrame(READ_REQUEST_ULPDU, 1);
        ByteBuffer abandoned = queue.frame();
        abandoned.putShort((short) 999).put(new byte[40]); // then, say, the caller threw
        Socket socket = new Socket(Integer.MAX_VALUE);

        assertThat(queue.writeTo(socket)).isTrue();
        queueFrame(READ_REQUEST_ULPDU, 2);
        queue.frame().putInt(-1); // abandoned again, this time before another frame
        queueFrame(READ_REQUEST_ULPDU, 3);
        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.flushedBytes()).isEqualTo(queue.enqueuedBytes()).isEqualTo(3 * 52);
    }

    @Test
    void droppingUnsentBytesKeepsALargeFpduInFlightToItsTrailer() throws Exception {
        SoftRegion region = region(4096);
        queueScratch(16, 1); // header
        queueView(region, 0, 2000); // payload
        queueTrailer(4);
        int fpdu = 16 + 2000 + 4;
        queueFrame(READ_REQUEST_ULPDU, 2); // not started: dropped
        Socket socket = new Socket(1000);

        assertThat(queue.writeTo(socket)).isFalse();
        queue.dropUnsent();
        socket.room = Integer.MAX_VALUE;
        assertThat(queue.writeTo(socket)).isTrue();

        byte[] first = new byte[fpdu];
        System.arraycopy(expected.toByteArray(), 0, first, 0, fpdu);
        assertThat(socket.taken.toByteArray()).isEqualTo(first);
        assertThat(queue.enqueuedBytes()).isEqualTo(fpdu).isEqualTo(queue.flushedBytes());
    }

    @Test
    void aFrameBufferTheSocketStartedOnTakesNoMoreFpdus() throws Exception {
        queueFrame(28, 1);
        queueFrame(28, 2);
        Socket socket = new Socket(10);
        assertThat(queue.writeTo(socket)).isFalse();

        queueFrame(28, 3);
        queueView(region(4096), 0, 500);
        queueFrame(8, 4);
        queueFrame(8, 5);
        socket.room = Integer.MAX_VALUE;
        assertThat(queue.writeTo(socket)).isTrue();

        assertThat(socket.taken.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(queue.flushedBytes()).isEqualTo(queue.enqueuedBytes());
    }

    @Test
    void droppingUnsentBytesOfAFrameBufferKeepsOnlyThePartlyWrittenFpdu() throws Exception {
        int fpdu = FpduFraming.fpduLength(28);
        for (int i = 0; i < 5; i++) {
            queueFrame(28, i);
        }
        Socket socket = new Socket(fpdu + fpdu / 2); // the first, half of the second

        assertThat(queue.writeTo(socket)).isFalse();
        queue.dropUnsent();
        socket.room = Integer.MAX_VALUE;
        assertThat(queue.writeTo(socket)).isTrue();

        byte[] firstTwo = new byte[2 * fpdu];
        System.arraycopy(expected.toByteArray(), 0, firstTwo, 0, 2 * fpdu);
        assertThat(socket.taken.toByteArray()).isEqualTo(firstTwo);
        assertThat(queue.enqueuedBytes()).isEqualTo(2 * fpdu).isEqualTo(queue.flushedBytes());
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void droppingUnsentBytesAtAnFpduBoundaryKeepsNothingMore() throws Exception {
        int fpdu = FpduFraming.fpduLength(8);
        for (int i = 0; i < 3; i++) {
            queueFrame(8, i);
        }
        Socket socket = new Socket(fpdu);

        assertThat(queue.writeTo(socket)).isFalse();
        queue.dropUnsent();
        assertThat(queue.isEmpty()).isTrue();
        socket.room = Integer.MAX_VALUE;

        assertThat(queue.writeTo(socket)).isTrue();
        assertThat(socket.taken.size()).isEqualTo(fpdu);
        assertThat(queue.enqueuedBytes()).isEqualTo(fpdu);
    }

    /** Frames an FPDU with a ULPDU of {@code ulpdu} bytes as {@link FpduWriter} does (no CRC). */
    private void queueFrame(int ulpdu, int seed) {
        ByteBuffer b = queue.frame();
        int start = b.position();
        b.putShort((short) ulpdu);
        for (int i = 0; i < ulpdu; i++) {
            b.put((byte) (seed * 31 + i));
        }
        new FpduFraming(false).finish(b, start);
        ByteBuffer framed = b.duplicate().flip().position(start);
        expected.write(toArray(framed), 0, framed.remaining());
        queue.commitFrame(b);
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return bytes;
    }

    /** Queues a whole message (as MPA messages and Terminates are), {@code length} bytes. */
    private void queueMessage(int length, int seed) {
        ByteBuffer b = ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++) {
            byte value = (byte) (seed * 31 + i);
            b.put(value);
            expected.write(value);
        }
        queue.add(b.flip());
    }

    private void queueTrailer(int length) {
        ByteBuffer b = queue.scratch();
        for (int i = 0; i < length; i++) {
            b.put((byte) i);
            expected.write(i);
        }
        queue.addTrailer(b.flip());
    }

    private void queueScratch(int length, int seed) {
        ByteBuffer b = queue.scratch();
        for (int i = 0; i < length; i++) {
            byte value = (byte) (seed * 31 + i);
            b.put(value);
            expected.write(value);
        }
        queue.addScratch(b.flip());
    }

    private void queueView(SoftRegion region, int offset, int length) {
        ByteBuffer bytes = region.bytes();
        for (int i = 0; i < length; i++) {
            byte value = (byte) (offset + i * 7);
            bytes.put(offset + i, value);
            expected.write(value);
        }
        queue.addView(region, offset, length);
    }

    private static SoftRegion region(int size) {
        return new RegionTable().register(ByteBuffer.allocateDirect(size), EnumSet.of(Access.LOCAL_WRITE));
    }

    /** A socket whose send buffer takes {@code room} more bytes, recording what it took and in how many buffers. */
    private static final class Socket implements GatheringByteChannel {
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();
        final java.util.List<Integer> buffersPerWrite = new java.util.ArrayList<>();
        /** Buffers of more than 256 bytes taken: the queue did not pack (copy) them. */
        int directViewsTaken;
        int room;

        Socket(int room) {
            this.room = room;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            buffersPerWrite.add(length);
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                if (srcs[i].remaining() > 256) {
                    directViewsTaken++;
                }
                n += take(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            buffersPerWrite.add(1);
            if (src.remaining() > 256) {
                directViewsTaken++;
            }
            return take(src);
        }

        private int take(ByteBuffer src) {
            int n = Math.min(room, src.remaining());
            for (int i = 0; i < n; i++) {
                taken.write(src.get());
            }
            room -= n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
