package io.kcdelta.it;

import io.apicurio.registry.utils.converter.avro.AvroData;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * An Avro converter with a registry of two fixed writer schemas instead of a schema registry: a
 * value is one byte (the schema's index in {@link #SCHEMAS}) followed by Avro binary. Decoded with
 * Avro's own reader and mapped to Connect by Apicurio's AvroData, as a registry converter does.
 */
public class IndexedAvroConverter implements Converter {
  static final List<Schema> SCHEMAS =
      List.of(io.kcdelta.testutil.AvroOrders.SCHEMA_V1, io.kcdelta.testutil.AvroOrders.SCHEMA_V2);

  private final AvroData avroData = new AvroData(10);

  /** The bytes a producer with schema {@code index} writes for the record. */
  static byte[] encode(int index, GenericRecord record) {
    try {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      out.write(index);
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(SCHEMAS.get(index)).write(record, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {}

  @Override
  public byte[] fromConnectData(
      String topic, org.apache.kafka.connect.data.Schema schema, Object value) {
    throw new UnsupportedOperationException("a sink-side test converter");
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    if (value.length == 0 || value[0] < 0 || value[0] >= SCHEMAS.size()) {
      throw new DataException("not a value of this converter");
    }
    Schema writer = SCHEMAS.get(value[0]);
    try {
      GenericRecord record =
          new GenericDatumReader<GenericRecord>(writer)
              .read(null, DecoderFactory.get().binaryDecoder(value, 1, value.length - 1, null));
      return avroData.toConnectData(writer, record);
    } catch (IOException | RuntimeException e) {
      throw new DataException("cannot decode an Avro value", e);
    }
  }
}
