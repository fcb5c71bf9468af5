package dev.rdmafutures.testcontainers;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class inside the project's QEMU VM, where {@link #devices()} are real verbs devices.
 * On the host the class is run once in the VM and each test reports the VM's outcome; inside the VM the tests run
 * as usual. Where no VM can be booted each test is skipped with the exact reason. Tagged {@code vm}: host builds
 * leave these classes out, {@code bin/test-vm} runs them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(InRdmaVmExtension.class)
@Tag("vm")
public @interface InRdmaVm {
    /** {@code siw}, {@code rxe} or {@code both}. */
    String devices() default "siw";

    /** How long the VM may run the class, in minutes: {@link RdmaVm}'s default unless the class needs longer. */
    int timeoutMinutes() default 15;
}
