A small bakery in Tolland sold its ten-thousandth loaf of rye bread this week.

The owners plan to open a second shop in spring.

@highlight

tolland bakery sells its 10,000th rye loaf .
