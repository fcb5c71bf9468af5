package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A loop's flush posts every listed queue's receives before any queue's sends: a receive posted on a poller before a
 * Send reaches the device before that Send, whichever queue pair or shared receive queue the Send's answer comes back
 * through (NDK and plain verbs post each request when it is made, so their users count on it). Listing order alone
 * posted a queue pair's Send ahead of a receive chained on a queue listed after it.
 */
class PendingPostsTest {
    private final List<String> posts = new ArrayList<>();
    private final List<PendingPosts> listed = new ArrayList<>();

    /** A queue that records its phases; {@code onSends} runs in its second phase (a refused request's callback). */
    private final class Queue implements PendingPosts {
        private final String name;
        private int receives;
        private int sends;
        private Runnable onSends = () -> { };

        Queue(String name, int receives, int sends) {
            this.name = name;
            this.receives = receives;
            this.sends = sends;
        }

        @Override
        public int postPendingReceives() {
            int posted = receives;
            if (posted > 0) {
                posts.add(name + " receives");
            }
            receives = 0;
            return posted;
        }

        @Override
        public int postPendingSends() {
            int handled = postPendingReceives() + sends;
            if (sends > 0) {
                posts.add(name + " sends");
            }
            sends = 0;
            onSends.run();
            return handled;
        }
    }

    @Test
    void everyQueuesReceivesGoBeforeAnyQueuesSends() {
        listed.add(new Queue("qp A", 0, 1)); // a Send on A was posted first, then a receive on B, then A's request
        listed.add(new Queue("qp B", 1, 0));
        listed.add(new Queue("srq", 2, 0));
        listed.add(new Queue("qp C", 1, 1));

        int work = PendingPosts.postAll(listed);

        assertThat(posts).containsExactly("qp B receives", "srq receives", "qp C receives", "qp A sends",
                "qp C sends");
        assertThat(work).isEqualTo(6);
    }

    @Test
    void whatIsListedWhileSendsArePostedIsPostedTooReceivesFirst() {
        Queue a = new Queue("qp A", 0, 1);
        a.onSends = () -> listed.add(new Queue("srq", 1, 0)); // a refused Send's callback posted a receive
        listed.add(a);
        Queue b = new Queue("qp B", 0, 1);
        listed.add(b);
        b.onSends = () -> listed.add(new Queue("qp C", 1, 1));

        int work = PendingPosts.postAll(listed);

        assertThat(posts).containsExactly("qp A sends", "qp B sends", "srq receives", "qp C receives", "qp C sends");
        assertThat(work).isEqualTo(5);
    }
}
