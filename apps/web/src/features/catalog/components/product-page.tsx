export function ProductPage() {
  return (
    <section className="page">
      <h1>Product</h1>
      <p>Product details will appear here.</p>
    </section>
  );
}
