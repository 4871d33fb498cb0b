\set x (1 + 2) * 3 - -4 % 5
\if :x > 3 AND NOT :a IS NULL
\set y CASE WHEN :x = 1 THEN 2.5 ELSE greatest(1, 2, 3) END
\elif :b
\sleep 1 ms
\else
\set z hash_fnv1a(:a, 5) # permute(:a, 10)
\endif
BEGIN; SELECT 1 \; SELECT $$a;b$$, E'x\''; END;
