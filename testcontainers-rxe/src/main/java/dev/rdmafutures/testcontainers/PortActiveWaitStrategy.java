package dev.rdmafutures.testcontainers;

import java.util.concurrent.TimeUnit;
import org.rnorth.ducttape.unreliables.Unreliables;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * Waits until port 1 of an RDMA device reads ACTIVE from inside the container (its sysfs {@code state}), which is
 * when verbs connections can be made through it.
 */
public final class PortActiveWaitStrategy extends AbstractWaitStrategy {
    private final String device;

    /** Waits for {@code device}'s port 1, e.g. {@code rxe0}. */
    public PortActiveWaitStrategy(String device) {
        this.device = device;
    }

    @Override
    protected void waitUntilReady() {
        String state = "/sys/class/infiniband/" + device + "/ports/1/state";
        try {
            Unreliables.retryUntilTrue((int) startupTimeout.toMillis(), TimeUnit.MILLISECONDS, () -> {
                String out = waitStrategyTarget.execInContainer("cat", state).getStdout();
                if (!out.contains("ACTIVE")) {
                    Thread.sleep(200);
                    return false;
                }
                return true;
            });
        } catch (org.rnorth.ducttape.TimeoutException e) {
            throw new ContainerLaunchException("port 1 of " + device + " did not become ACTIVE within "
                    + startupTimeout + " (" + state + ")", e);
        }
    }
}
