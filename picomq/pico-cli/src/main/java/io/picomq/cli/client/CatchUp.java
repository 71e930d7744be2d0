package io.picomq.cli.client;

import io.picomq.client.PicoClient;
import io.picomq.client.Protocol;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import java.util.Locale;

/** The catch-up loop shared by {@code read} and {@code tail}: read pages until the tail. */
final class CatchUp {
  /** Records asked for per request when the user set no smaller cap. */
  static final int PAGE_RECORDS = 1000;

  private CatchUp() {}

  /**
   * Prints records from {@code fromSeq} until the stream's tail (as it was when reached) or until
   * {@code count} records (0: no cap), flushing once at the end.
   *
   * @return the seq after the last record printed
   */
  static long catchUp(
      PicoClient client, String stream, long fromSeq, long count, RecordWriter writer) {
    long seq = fromSeq;
    long printed = 0;
    while (count == 0 || printed < count) {
      int page = (int) (count == 0 ? PAGE_RECORDS : Math.min(PAGE_RECORDS, count - printed));
      ReadResult result = client.read(stream, ReadRequest.from(seq).maxRecords(page));
      var records = result.records();
      if (count != 0 && records.size() > count - printed) {
        records = records.subList(0, (int) (count - printed));
      }
      writer.write(records);
      printed += records.size();
      boolean advanced = result.nextSeq() > seq;
      seq =
          records.size() < result.records().size() ? records.getLast().seq() + 1 : result.nextSeq();
      if (result.upToDate() || result.closed() || result.records().isEmpty() || !advanced) {
        break;
      }
    }
    writer.flush();
    return seq;
  }

  /**
   * The format records are printed in. Under Durable Streams a stream that is not JSON reads back
   * as chunks of bytes, not records, so lines would add newlines that were never appended: there
   * {@link RecordFormat#LINES} prints the bytes as they are.
   */
  static RecordFormat effectiveFormat(
      RecordFormat asked, Protocol protocol, PicoClient client, String stream) {
    if (asked != RecordFormat.LINES || protocol != Protocol.DURABLE_STREAMS) {
      return asked;
    }
    String contentType = client.head(stream).contentType().toLowerCase(Locale.ROOT);
    boolean json = contentType.startsWith("application/json") || contentType.contains("+json");
    return json ? RecordFormat.LINES : RecordFormat.RAW;
  }
}
