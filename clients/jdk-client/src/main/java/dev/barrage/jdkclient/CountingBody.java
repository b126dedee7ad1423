package dev.barrage.jdkclient;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A body handler that reads the whole body, counts its bytes and keeps none of them: the
 * response is complete when its last byte is read, and the client allocates no copy of it.
 */
final class CountingBody implements HttpResponse.BodySubscriber<Long> {
    static final HttpResponse.BodyHandler<Long> HANDLER = info -> new CountingBody();

    private final CompletableFuture<Long> result = new CompletableFuture<>();
    private long bytes;

    @Override public CompletionStage<Long> getBody() { return result; }

    @Override public void onSubscribe(Flow.Subscription subscription) { subscription.request(Long.MAX_VALUE); }

    @Override public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) bytes += buffer.remaining();
    }

    @Override public void onError(Throwable error) { result.completeExceptionally(error); }

    @Override public void onComplete() { result.complete(bytes); }
}
