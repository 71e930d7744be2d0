package io.picomq.s3stream.objectstore.uri;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.RetryingObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening stores from URIs (the s3:// case runs in the S3 contract suite). */
class ObjectStoresTest {

  @TempDir Path dir;

  @Test
  void fileUrisOpenARetryingStoreInANewDirectory() throws Exception {
    Path objects = dir.resolve("nested/objects");
    try (ObjectStore store = ObjectStores.open(ObjectStorageUri.parse("-2@file://" + objects))) {
      assertThat(store).isInstanceOf(RetryingObjectStore.class);
      assertThat(objects).isDirectory();
      ByteBuf data = Unpooled.wrappedBuffer(new byte[] {4, 2});
      store.put("a/b", data).get(10, TimeUnit.SECONDS);
      data.release();
      assertThat(store.list("").get(10, TimeUnit.SECONDS))
          .containsExactly(new ObjectInfo("a/b", 2));
    }
    assertThat(Files.exists(objects.resolve("a~/b"))).isTrue();
  }

  @Test
  void eachMemoryOpenIsANewEmptyStore() throws Exception {
    ObjectStorageUri uri = ObjectStorageUri.parse("0@memory://same-name");
    try (ObjectStore first = ObjectStores.open(uri);
        ObjectStore second = ObjectStores.open(uri)) {
      ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1});
      first.put("k", data).get(10, TimeUnit.SECONDS);
      data.release();
      ByteBuf got = first.get("k", 0, -1).get(10, TimeUnit.SECONDS);
      assertThat(ByteBufUtil.getBytes(got)).containsExactly(1);
      got.release();
      assertThat(second.list("").get(10, TimeUnit.SECONDS)).isEmpty();
    }
  }
}
