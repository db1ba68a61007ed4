export function ShopPage() {
  return (
    <section className="page">
      <h1>Shop</h1>
      <p>Products from the label will appear here.</p>
    </section>
  );
}
