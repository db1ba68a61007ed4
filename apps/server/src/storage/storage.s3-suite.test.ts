// The whole storage suite again, with STORAGE_URL=s3://... against s3rver on 127.0.0.1.
import './testing/use-s3-driver.ts';
import './storage.test.ts';
