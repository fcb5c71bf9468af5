/** The consumer is a module too, so that its build shows what a modular application sees of RdmaFutures. */
module com.example.hello {
    requires dev.rdmafutures;
}
