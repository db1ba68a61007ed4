// The cleanup suite again with STORAGE_URL=s3://... against s3rver: encoded files and masters
// of deleted tracks and detached masters removed from the bucket.
import '../storage/testing/use-s3-driver.ts';
import './digital-cleanup.test.ts';
