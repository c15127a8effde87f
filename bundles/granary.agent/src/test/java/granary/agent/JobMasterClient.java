package granary.agent;

import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Plan;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Paths;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Posts plan envelopes to an agent the way a job master does, and returns the raw status with the ack. */
final class JobMasterClient {

    record Answer(int status, Ack ack) {
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final WireCodec codec = new WireCodec(Role.JOB_MASTER);
    private final URI agent;

    JobMasterClient(URI agent) {
        this.agent = agent;
    }

    Answer post(String token, String jobMaster, long incarnation, long sequence, Plan plan) throws Exception {
        Envelope e = Envelope.of(new Sender(Role.JOB_MASTER, jobMaster), incarnation, sequence, plan);
        return post(token, codec.encode(e));
    }

    Answer post(String token, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(agent.resolve(Paths.MESSAGES)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        Envelope reply = codec.decode(r.body(), "agent");
        return new Answer(r.statusCode(), (Ack) reply.message());
    }
}
